package server

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// The server's limits, each a setting of Config.Conf or of
// $ATLAS_CONNECT_CONF (see README.md, "Limits"). A request past one fails
// with an error naming the setting; the server goes on serving.
const (
	// ConfMaxInbound is the largest request message, Spark's
	// spark.connect.grpc.maxInboundMessageSize (128 MiB).
	ConfMaxInbound = "spark.connect.grpc.maxInboundMessageSize"
	// ConfRecursionLimit bounds how deeply the messages of a plan nest
	// (relations in relations, expressions in expressions), Spark's
	// spark.connect.grpc.marshallerRecursionLimit (1024).
	ConfRecursionLimit = "spark.connect.grpc.marshallerRecursionLimit"
	// ConfMaxPlanNodes bounds how many messages (relations, expressions,
	// literals) one plan holds (100,000).
	ConfMaxPlanNodes = "spark.atlas.connect.maxPlanNodes"
	// ConfMaxResultSize bounds the Arrow data one collect sends back,
	// Spark's spark.driver.maxResultSize (1g; 0 is no limit).
	ConfMaxResultSize = "spark.driver.maxResultSize"
	// ConfMaxSessions bounds the sessions open at once (1000).
	ConfMaxSessions = "spark.atlas.connect.maxSessions"
	// ConfMaxSessionsPerUser bounds the sessions one authenticated user
	// (one token's principal) has open at once (100), whatever user_id
	// its sessions name: the user id is the client's to choose.
	ConfMaxSessionsPerUser = "spark.atlas.connect.maxSessionsPerUser"
)

// EnvConf names the environment variable holding server settings as
// key=value pairs separated by commas, read when the server starts
// (`atlas up` passes its environment on): for example
// ATLAS_CONNECT_CONF=spark.driver.maxResultSize=2g,spark.atlas.connect.maxSessions=200.
// Config.Conf wins over it.
const EnvConf = "ATLAS_CONNECT_CONF"

// limits are the server's limits.
type limits struct {
	maxInbound         int
	recursionLimit     int
	maxPlanNodes       int
	maxResultSize      int64
	maxSessions        int
	maxSessionsPerUser int
}

// serverConf are the settings fixed when the server starts: a client
// cannot change them with spark.conf.set (CANNOT_MODIFY_CONFIG).
var serverConf = map[string]bool{
	ConfMaxInbound: true, ConfRecursionLimit: true, ConfMaxPlanNodes: true, ConfMaxResultSize: true,
	ConfMaxSessions: true, ConfMaxSessionsPerUser: true, parser.ConfMaxDepth: true,
}

// withEnvConf returns conf with the settings of $ATLAS_CONNECT_CONF it
// does not have.
func withEnvConf(conf map[string]string) (map[string]string, error) {
	out := map[string]string{}
	if env := strings.TrimSpace(os.Getenv(EnvConf)); env != "" {
		for _, kv := range strings.Split(env, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, fmt.Errorf("atlas connect: $%s: %q is not key=value", EnvConf, kv)
			}
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	for k, v := range conf {
		out[k] = v
	}
	return out, nil
}

// readLimits reads the limits from conf, defaults where unset.
func readLimits(conf map[string]string) (limits, error) {
	l := limits{maxInbound: 128 << 20, recursionLimit: 1024, maxPlanNodes: 100_000, maxResultSize: 1 << 30, maxSessions: 1000, maxSessionsPerUser: 100}
	ints := []struct {
		key string
		dst *int
	}{{ConfRecursionLimit, &l.recursionLimit}, {ConfMaxPlanNodes, &l.maxPlanNodes}, {ConfMaxSessions, &l.maxSessions}, {ConfMaxSessionsPerUser, &l.maxSessionsPerUser}}
	for _, c := range ints {
		if v, ok := conf[c.key]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n <= 0 {
				return l, fmt.Errorf("atlas connect: %s=%q: want a positive integer", c.key, v)
			}
			*c.dst = n
		}
	}
	if v, ok := conf[ConfMaxInbound]; ok {
		n, err := parseBytes(v)
		if err != nil || n <= 0 || n > 1<<31-1 {
			return l, fmt.Errorf("atlas connect: %s=%q: want a size in bytes (such as 134217728 or 256m) under 2g", ConfMaxInbound, v)
		}
		l.maxInbound = int(n)
	}
	if v, ok := conf[ConfMaxResultSize]; ok {
		n, err := parseBytes(v)
		if err != nil || n < 0 {
			return l, fmt.Errorf("atlas connect: %s=%q: want a size such as 1g, 512m or 0 (no limit)", ConfMaxResultSize, v)
		}
		l.maxResultSize = n
	}
	if v, ok := conf[parser.ConfMaxDepth]; ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n <= 0 {
			return l, fmt.Errorf("atlas connect: %s=%q: want a positive integer", parser.ConfMaxDepth, v)
		}
	}
	return l, nil
}

// parseBytes reads a size as Spark writes one: a number of bytes with an
// optional unit suffix k, m, g or t (also kb, mb, gb, tb; powers of 1024).
func parseBytes(s string) (int64, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"tb", 1 << 40}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}, {"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if n > (1<<63-1)/mult {
		return 0, fmt.Errorf("%s overflows", s)
	}
	return n * mult, nil
}

// limitError is a request past a limit: RESOURCE_EXHAUSTED naming the
// setting to raise.
func limitError(errorClass, sqlState, msg, setting string) error {
	return withInfo(codes.ResourceExhausted, errorClass, sqlState, classSpark,
		fmt.Sprintf("%s; the server's setting %s raises the limit (in $%s when the server starts)", msg, setting, EnvConf))
}

// checkPlan refuses a plan nesting deeper than the recursion limit or
// holding more messages than the plan-size limit, before anything plans
// it (the planner recurses once per level).
func (l limits) checkPlan(m protoreflect.Message) error {
	w := planWalk{maxDepth: l.recursionLimit, maxNodes: l.maxPlanNodes}
	w.walk(m, 1)
	switch {
	case w.tooDeep:
		return limitError("", "54000", fmt.Sprintf("the plan nests more than %d messages deep", l.recursionLimit), ConfRecursionLimit)
	case w.tooBig:
		return limitError("", "54000", fmt.Sprintf("the plan holds more than %d messages (relations, expressions, literals)", l.maxPlanNodes), ConfMaxPlanNodes)
	}
	return nil
}

// planWalk counts the messages of a plan and its depth, stopping at the
// first limit passed.
type planWalk struct {
	maxDepth, maxNodes int
	nodes              int
	tooDeep, tooBig    bool
}

func (w *planWalk) walk(m protoreflect.Message, depth int) {
	if w.tooDeep || w.tooBig {
		return
	}
	if depth > w.maxDepth {
		w.tooDeep = true
		return
	}
	if w.nodes++; w.nodes > w.maxNodes {
		w.tooBig = true
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			list := v.List()
			for i := 0; i < list.Len() && !w.tooDeep && !w.tooBig; i++ {
				w.walk(list.Get(i).Message(), depth+1)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				w.walk(mv.Message(), depth+1)
				return !w.tooDeep && !w.tooBig
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			w.walk(v.Message(), depth+1)
		}
		return !w.tooDeep && !w.tooBig
	})
}

// checkResult refuses a collect whose Arrow data exceeds
// spark.driver.maxResultSize, with Spark's message, before any of it is
// encoded and sent.
func (l limits) checkResult(recs []arrow.RecordBatch) error {
	if l.maxResultSize <= 0 {
		return nil
	}
	var total int64
	for _, r := range recs {
		total += recordBytes(r)
	}
	if total <= l.maxResultSize {
		return nil
	}
	return limitError("", "", fmt.Sprintf("Job aborted: Total size of serialized results of %d batches (%s) is bigger than %s (%s)",
		len(recs), mib(total), ConfMaxResultSize, mib(l.maxResultSize)), ConfMaxResultSize)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
