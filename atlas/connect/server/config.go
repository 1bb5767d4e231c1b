package server

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// confDefaults are the values of Spark settings clients read without
// setting them (PySpark asks for the session time zone, for example).
// Atlas's sessions start in UTC and with Spark 4's ANSI mode.
var confDefaults = map[string]string{
	"spark.sql.session.timeZone":                                      "UTC",
	"spark.sql.streaming.multipleWatermarkPolicy":                     "min",
	"spark.sql.ansi.enabled":                                          "true",
	"spark.sql.timestampType":                                         "TIMESTAMP_LTZ",
	"spark.sql.repl.eagerEval.enabled":                                "false",
	"spark.sql.repl.eagerEval.maxNumRows":                             "20",
	"spark.sql.repl.eagerEval.truncate":                               "20",
	"spark.sql.pyspark.inferNestedDictAsStruct.enabled":               "false",
	"spark.sql.pyspark.legacy.inferArrayTypeFromFirstElement.enabled": "false",
	"spark.sql.execution.pandas.convertToArrowArraySafely":            "false",
	"spark.sql.execution.pandas.structHandlingMode":                   "legacy",
	"spark.sql.execution.arrow.useLargeVarTypes":                      "false",
	"spark.sql.execution.pythonUDF.arrow.enabled":                     "false",
}

// confCheckpointLocation is Spark's root of the checkpoints of named
// queries. The server owns it: unless the session sets it, its value is
// the engine's checkpoint root ($ATLAS_CHECKPOINT_ROOT, else
// $ATLAS_HOME/checkpoints of the server), so that a client's CheckpointDir
// and the CLI name one location for one query name.
const confCheckpointLocation = "spark.sql.streaming.checkpointLocation"

// serverValue is the server's value of a setting the session did not set:
// the checkpoint root, or a default of confDefaults.
func serverValue(sess *session, k string) (string, bool) {
	if k == confCheckpointLocation {
		return absLocation(sess.engine.CheckpointRoot()), true
	}
	v, ok := confDefaults[k]
	return v, ok
}

// fixedConf are settings Atlas does not honour another value of: a query
// would silently run with the default. (None today: the session time
// zone, once fixed to UTC, is honoured.)
var fixedConf = map[string]bool{}

// confChoices are the values Spark accepts for a setting (its
// checkValues), in any case; another value is refused at set, as Spark
// refuses it. spark.sql.streaming.multipleWatermarkPolicy picks the global
// watermark of a stream-stream join: the minimum of the inputs' (Spark's
// default) or the maximum, which drops more of the slower input's rows as
// late.
var confChoices = map[string][]string{"spark.sql.streaming.multipleWatermarkPolicy": {"min", "max"}}

// Config reads and writes the session's Spark settings, as
// spark.conf.get/set/unset. They are kept so clients see what they set,
// and passed to the engine session, which honours the streaming settings
// it knows (engine.Session.SetConf) for the queries started after.
func (s *service) Config(ctx context.Context, req *pb.ConfigRequest) (*pb.ConfigResponse, error) {
	sess, err := s.session(ctx, req.GetUserContext(), req.GetSessionId(), req.ClientObservedServerSideSessionId)
	if err != nil {
		return nil, err
	}
	resp := &pb.ConfigResponse{SessionId: sess.key.id, ServerSideSessionId: sess.serverSideID}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	get := sess.confLocked
	switch op := req.GetOperation().GetOpType().(type) {
	case *pb.ConfigRequest_Operation_Set:
		for _, kv := range op.Set.GetPairs() {
			if err := sess.setConfLocked(kv.GetKey(), kv.GetValue()); err != nil {
				return nil, err
			}
		}
	case *pb.ConfigRequest_Operation_Get:
		for _, k := range op.Get.GetKeys() {
			v, ok := get(k)
			if !ok {
				return nil, withInfo(codes.NotFound, "SQL_CONF_NOT_FOUND", "42K0I", "java.util.NoSuchElementException",
					fmt.Sprintf("[SQL_CONF_NOT_FOUND] The SQL config %q cannot be found.", k))
			}
			resp.Pairs = append(resp.Pairs, &pb.KeyValue{Key: k, Value: &v})
		}
	case *pb.ConfigRequest_Operation_GetWithDefault:
		for _, kv := range op.GetWithDefault.GetPairs() {
			v, ok := sess.conf[kv.GetKey()]
			if !ok && kv.GetKey() == confCheckpointLocation {
				v, ok = serverValue(sess, kv.GetKey())
			}
			if !ok {
				resp.Pairs = append(resp.Pairs, &pb.KeyValue{Key: kv.GetKey(), Value: kv.Value})
				continue
			}
			resp.Pairs = append(resp.Pairs, &pb.KeyValue{Key: kv.GetKey(), Value: &v})
		}
	case *pb.ConfigRequest_Operation_GetOption:
		for _, k := range op.GetOption.GetKeys() {
			kv := &pb.KeyValue{Key: k}
			if v, ok := get(k); ok {
				kv.Value = &v
			}
			resp.Pairs = append(resp.Pairs, kv)
		}
	case *pb.ConfigRequest_Operation_GetAll:
		keys := make([]string, 0, len(sess.conf))
		for k := range sess.conf {
			if strings.HasPrefix(k, op.GetAll.GetPrefix()) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := sess.conf[k]
			resp.Pairs = append(resp.Pairs, &pb.KeyValue{Key: k, Value: &v})
		}
	case *pb.ConfigRequest_Operation_Unset:
		for _, k := range op.Unset.GetKeys() {
			if err := sess.unsetConfLocked(k); err != nil {
				return nil, err
			}
		}
	case *pb.ConfigRequest_Operation_IsModifiable:
		for _, k := range op.IsModifiable.GetKeys() {
			v := fmt.Sprint(!fixedConf[k] && !serverConf[k])
			resp.Pairs = append(resp.Pairs, &pb.KeyValue{Key: k, Value: &v})
		}
	default:
		return nil, invalidArgument(fmt.Errorf("config: no operation"))
	}
	return resp, nil
}

// confLocked is the value of setting k: the session's, else the server's;
// the caller holds sess.mu.
func (sess *session) confLocked(k string) (string, bool) {
	if v, ok := sess.conf[k]; ok {
		return v, true
	}
	return serverValue(sess, k)
}

// checkConf refuses a value of setting k the session may not set: a
// server setting, a value Spark's checkValues refuses, or one Atlas does
// not honour.
func checkConf(k, v string) error {
	if serverOnlyConf(k) {
		return invalidArgument(fmt.Errorf("%s is a setting of the server, which sessions cannot change", k))
	}
	if serverConf[k] {
		return staticConf(k)
	}
	if fixedConf[k] && !strings.EqualFold(v, confDefaults[k]) {
		return invalidArgument(fmt.Errorf("%s: Atlas runs in %s only", k, confDefaults[k]))
	}
	if choices := confChoices[k]; choices != nil && !slices.Contains(choices, strings.ToLower(v)) {
		return invalidArgument(fmt.Errorf("the value of %s should be one of %s, but was %q", k, strings.Join(choices, ", "), v))
	}
	if k == expr.ConfSessionTimeZone {
		if _, err := expr.ParseZoneID(v); err != nil {
			return withInfo(codes.InvalidArgument, "INVALID_CONF_VALUE.TIME_ZONE", "22022", classIllegalArg, err.Error())
		}
	}
	if refuse, ok := unsupportedConf[k]; ok {
		if why := refuse(v); why != "" {
			return invalidArgument(fmt.Errorf("%s=%s is not supported: %s", k, v, why))
		}
	}
	return nil
}

// unsupportedConf are settings of which Atlas honours only some values:
// each returns why it refuses v, or "" when it accepts it.
var unsupportedConf = map[string]func(v string) string{
	"spark.sql.parser.escapedStringLiterals": func(v string) string {
		if strings.EqualFold(strings.TrimSpace(v), "false") {
			return ""
		}
		return "Atlas reads string literals with Spark's default escapes (false); write the literal as a raw string r'...' instead"
	},
}

// setConfLocked sets k=v for the session and its engine, as
// spark.conf.set and SET k=v; the caller holds sess.mu.
func (sess *session) setConfLocked(k, v string) error {
	if err := checkConf(k, v); err != nil {
		return err
	}
	sess.conf[k] = v
	sess.engine.SetConf(k, v)
	return nil
}

// unsetConfLocked forgets the session's value of k, as spark.conf.unset
// and RESET k; the caller holds sess.mu.
func (sess *session) unsetConfLocked(k string) error {
	if serverConf[k] {
		return staticConf(k)
	}
	delete(sess.conf, k)
	sess.engine.UnsetConf(k)
	return nil
}

// staticConf refuses to change a server setting (a limit), as Spark
// refuses a static one: it is fixed when the server starts.
func staticConf(key string) error {
	return withInfo(codes.InvalidArgument, "CANNOT_MODIFY_STATIC_CONFIG", "46110", classAnalysis,
		fmt.Sprintf("[CANNOT_MODIFY_STATIC_CONFIG] Cannot modify the value of the static Spark config: %q. SQLSTATE: 46110 (it is a setting of the Atlas server: set it in $%s when the server starts)", key, EnvConf))
}
