package kafka

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// ValidOptions lists, in Spark's spelling, the options New understands. Other
// kafka.* consumer settings are accepted and ignored, as the source manages
// its own consumer. Option names are matched case-insensitively, as in Spark.
// Callers must not modify the slice.
var ValidOptions = []string{
	"kafka.bootstrap.servers",
	"subscribe",
	"subscribePattern",
	"assign",
	"startingOffsets",
	"maxOffsetsPerTrigger",
	"failOnDataLoss",
	"kafka.client.id",
	"kafka.isolation.level",
	"kafka.fetch.max.bytes",
	"kafka.max.partition.fetch.bytes",
	"kafka.fetch.max.wait.ms",
	"includeHeaders",
	"groupIdPrefix",
	"brokerUnavailableTimeout",
}

// unsupportedOptions are Spark Kafka options this source knows but does not
// implement yet; naming one is an error that says so.
var unsupportedOptions = []string{
	"startingTimestamp",
	"startingOffsetsByTimestamp",
	"startingOffsetsByTimestampStrategy",
	"endingTimestamp",
	"endingOffsetsByTimestamp",
	"minOffsetsPerTrigger",
	"maxTriggerDelay",
	"minPartitions",
	"maxRecordsPerPartition",
}

// Defaults for the consumer: Kafka's fetch.max.bytes (50 MiB) and
// max.partition.fetch.bytes (1 MiB), which Spark's consumer inherits, and a
// short broker wait so that an idle long poll never delays a reposition or
// a newly added partition for long. A larger partition limit (50 MiB was
// tried) lets one fetch of compressed small records decode into millions of
// records at once, which the reader then holds: the query's peak RSS
// doubles and the garbage collector scans them all, and raw consume was not measurably slower.
const (
	defaultFetchMaxBytes          = 50 << 20
	defaultFetchMaxPartitionBytes = 1 << 20
	defaultFetchMaxWait           = 100 * time.Millisecond
	defaultClientID               = "atlas-kafka-source"
)

// startKind says how startingOffsets was given.
type startKind int

const (
	startLatest startKind = iota
	startEarliest
	startSpecific
)

// Sentinels in a startingOffsets JSON, as in Spark.
const (
	specificEarliest = -2
	specificLatest   = -1
)

// config is the parsed option map.
type config struct {
	bootstrap []string
	// Exactly one of topics (subscribe), pattern (subscribePattern) and
	// assigned (assign) says what to read; with assign, topics lists the
	// assigned partitions' topics.
	topics         []string
	pattern        *regexp.Regexp
	patternText    string
	assigned       map[string]map[int32]bool
	start          startKind
	specific       Offsets // only for startSpecific; may hold -1/-2
	maxOffsets     int64   // 0 means no limit
	failOnDataLoss bool
	clientID       string
	readCommitted  bool
	fetchMaxBytes  int32
	fetchPartBytes int32
	fetchMaxWait   time.Duration
	// unavailableTimeout bounds how long a query that must end waits for
	// unreachable brokers (brokerUnavailableTimeout).
	unavailableTimeout time.Duration

	// batch says the options are a batch read's (spark.read): endingOffsets
	// is allowed, startingOffsets defaults to earliest, and the trigger
	// options are ignored, each with a warning, as Spark does.
	batch bool
	// endSpecific is endingOffsets as JSON (may hold -1), nil for latest.
	endSpecific Offsets
	// warnings are what Spark logs as warnings for these options.
	warnings []string
	// includeHeaders adds the headers column (batch reads only).
	includeHeaders bool
}

// parseOptions validates the option map of a streaming read the way Spark's
// KafkaSourceProvider does and returns the configuration.
func parseOptions(opts map[string]string) (*config, error) {
	return parseOptionsFor(opts, false)
}

// batchIgnored are the trigger options that Spark's KafkaSourceProvider
// ignores in a batch read, with a warning (validateBatchOptions).
var batchIgnored = map[string]string{
	"maxoffsetspertrigger": "maxOffsetsPerTrigger",
	"minoffsetspertrigger": "minOffsetsPerTrigger",
	"maxtriggerdelay":      "maxTriggerDelay",
}

// parseOptionsFor validates the options of a streaming (batch false) or a
// batch read.
func parseOptionsFor(opts map[string]string, batch bool) (*config, error) {
	cfg := &config{
		batch:          batch,
		failOnDataLoss: true,
		clientID:       defaultClientID,
		fetchMaxBytes:  defaultFetchMaxBytes,
		fetchPartBytes: defaultFetchMaxPartitionBytes,
		fetchMaxWait:   defaultFetchMaxWait,

		unavailableTimeout: defaultUnavailableTimeout,
	}
	if batch {
		cfg.start = startEarliest
	}
	valid := make(map[string]string, len(ValidOptions))
	for _, name := range ValidOptions {
		valid[strings.ToLower(name)] = name
	}
	unsupported := make(map[string]string, len(unsupportedOptions))
	for _, name := range unsupportedOptions {
		unsupported[strings.ToLower(name)] = name
	}

	// Sorted so that the first error reported is deterministic.
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	var err error
	var strategies []string
	for _, key := range keys {
		value := opts[key]
		lk := strings.ToLower(strings.TrimSpace(key))
		if name, ok := batchIgnored[lk]; ok && batch {
			cfg.warnings = append(cfg.warnings, name+" option ignored in batch queries")
			continue
		}
		if name, ok := unsupported[lk]; ok {
			return nil, fmt.Errorf("kafka source: option %q is not supported yet; use \"subscribe\" with a comma-separated list of topics and \"startingOffsets\"", name)
		}
		switch lk {
		case "subscribe", "subscribepattern", "assign":
			strategies = append(strategies, key)
		}
		switch lk {
		case "kafka.bootstrap.servers":
			cfg.bootstrap = splitList(value)
		case "subscribe":
			cfg.topics = unique(splitList(value))
			if len(cfg.topics) == 0 {
				err = fmt.Errorf("kafka source: option subscribe names no topic: give a comma-separated list of topics, such as \"events\"")
			}
		case "subscribepattern":
			err = cfg.parsePattern(value)
		case "assign":
			err = cfg.parseAssign(value)
		case "startingoffsets":
			err = cfg.parseStartingOffsets(value)
		case "endingoffsets":
			if !batch {
				return nil, fmt.Errorf("kafka source: ending offset not valid in streaming queries: endingOffsets belongs to a batch read, spark.read.format(\"kafka\")")
			}
			err = cfg.parseEndingOffsets(value)
		case "maxoffsetspertrigger":
			cfg.maxOffsets, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || cfg.maxOffsets <= 0 {
				err = fmt.Errorf("kafka source: option maxOffsetsPerTrigger must be a positive number, got %q", value)
			}
		case "failondataloss":
			cfg.failOnDataLoss, err = parseBool("failOnDataLoss", value)
		case "kafka.client.id":
			cfg.clientID = strings.TrimSpace(value)
		case "kafka.isolation.level":
			switch strings.ToLower(strings.TrimSpace(value)) {
			case "read_uncommitted":
				cfg.readCommitted = false
			case "read_committed":
				cfg.readCommitted = true
			default:
				err = fmt.Errorf("kafka source: option kafka.isolation.level must be read_uncommitted or read_committed, got %q", value)
			}
		case "kafka.fetch.max.bytes":
			cfg.fetchMaxBytes, err = parseBytes(key, value)
		case "kafka.max.partition.fetch.bytes":
			cfg.fetchPartBytes, err = parseBytes(key, value)
		case "kafka.fetch.max.wait.ms":
			var ms int64
			ms, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || ms < 0 {
				err = fmt.Errorf("kafka source: option kafka.fetch.max.wait.ms must be a number of milliseconds, got %q", value)
			}
			cfg.fetchMaxWait = time.Duration(ms) * time.Millisecond
		case "brokerunavailabletimeout":
			cfg.unavailableTimeout, err = parseTimeout(key, value)
		case "includeheaders":
			var include bool
			include, err = parseBool("includeHeaders", value)
			if err == nil && include && !batch {
				err = fmt.Errorf("kafka source: option includeHeaders=true is not supported yet in a stream (a batch read, spark.read.format(\"kafka\"), has it); the stream reads key, value, topic, partition, offset, timestamp and timestampType")
			}
			cfg.includeHeaders = include
		case "groupidprefix":
			// The source joins no consumer group, so the prefix has nothing to name.
		case "kafka.security.protocol":
			if !strings.EqualFold(strings.TrimSpace(value), "PLAINTEXT") {
				return nil, fmt.Errorf("kafka source: option kafka.security.protocol=%s is not supported yet; only PLAINTEXT connections are", value)
			}
		default:
			switch {
			case strings.HasPrefix(lk, "kafka.sasl.") || strings.HasPrefix(lk, "kafka.ssl."):
				return nil, fmt.Errorf("kafka source: option %q is not supported yet: the source connects with PLAINTEXT only (no SASL, no TLS)", key)
			case strings.HasPrefix(lk, "kafka."):
				// Other consumer settings are ignored: the source manages its consumer.
			default:
				return nil, unknownOptionError(key)
			}
		}
		if err != nil {
			return nil, err
		}
	}

	if len(cfg.bootstrap) == 0 {
		return nil, fmt.Errorf("kafka source: option kafka.bootstrap.servers is required, such as \"127.0.0.1:9092\"")
	}
	switch len(strategies) {
	case 0:
		return nil, fmt.Errorf("kafka source: one of the options subscribe, subscribePattern and assign must be specified: subscribe takes a comma-separated list of topics (\"events\"), subscribePattern a regular expression (\"events-.*\"), assign JSON partitions ({\"events\":[0,1]})")
	case 1:
	default:
		return nil, fmt.Errorf("kafka source: only one of the options subscribe, subscribePattern and assign can be specified, got %s; keep one", strings.Join(strategies, " and "))
	}
	if cfg.start == startSpecific {
		if err := cfg.checkNamed("startingOffsets", cfg.specific); err != nil {
			return nil, err
		}
	}
	if cfg.endSpecific != nil {
		if err := cfg.checkNamed("endingOffsets", cfg.endSpecific); err != nil {
			return nil, err
		}
	}
	if batch {
		if err := cfg.checkBatchOffsets(); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// checkNamed checks that the partitions of a JSON offsets option are ones
// the strategy reads.
func (cfg *config) checkNamed(option string, offs Offsets) error {
	for t, ps := range offs {
		switch {
		case cfg.pattern != nil:
			if !cfg.pattern.MatchString(t) {
				return fmt.Errorf("kafka source: %s names topic %q, which does not match subscribePattern %q", option, t, cfg.patternText)
			}
		case cfg.assigned != nil:
			for p := range ps {
				if !cfg.assigned[t][p] {
					return fmt.Errorf("kafka source: %s names %s-%d, which is not in assign", option, t, p)
				}
			}
		default:
			if !contains(cfg.topics, t) {
				return fmt.Errorf("kafka source: %s names topic %q, which is not in subscribe %q", option, t, strings.Join(cfg.topics, ","))
			}
		}
	}
	return nil
}

// checkBatchOffsets refuses what Spark's validateBatchOptions refuses: a
// batch read cannot start at latest nor end at earliest.
func (cfg *config) checkBatchOffsets() error {
	if cfg.start == startLatest {
		return fmt.Errorf("kafka source: starting offset can't be latest for batch queries on Kafka; a batch read starts at \"earliest\" (the default) or at JSON offsets")
	}
	var bad []string
	cfg.specific.each(func(t string, p int32, off int64) {
		if off == specificLatest {
			bad = append(bad, fmt.Sprintf("startingOffsets for %s-%d can't be latest for batch queries on Kafka", t, p))
		}
	})
	cfg.endSpecific.each(func(t string, p int32, off int64) {
		if off == specificEarliest {
			bad = append(bad, fmt.Sprintf("ending offset for %s-%d can't be earliest for batch queries on Kafka", t, p))
		}
	})
	if len(bad) > 0 {
		return fmt.Errorf("kafka source: %s", bad[0])
	}
	return nil
}

// parseEndingOffsets reads endingOffsets: "latest" (the default) or a JSON
// offset map in which -1 means latest; "earliest" is refused, as Spark
// refuses it.
func (cfg *config) parseEndingOffsets(value string) error {
	v := strings.TrimSpace(value)
	switch strings.ToLower(v) {
	case "latest":
		cfg.endSpecific = nil
		return nil
	case "earliest":
		return fmt.Errorf("kafka source: ending offset can't be earliest for batch queries on Kafka; end at \"latest\" (the default) or at JSON offsets")
	}
	offsets, err := ParseOffset(source.Offset(v))
	if err != nil || offsets == nil {
		return fmt.Errorf("kafka source: option endingOffsets must be \"latest\" or JSON such as {\"events\":{\"0\":23,\"1\":-1}} (-1 latest), got %q", value)
	}
	for t, ps := range offsets {
		for p, o := range ps {
			if o < specificEarliest {
				return fmt.Errorf("kafka source: endingOffsets for %s-%d is %d: use an offset >= 0 or -1 for latest", t, p, o)
			}
		}
	}
	cfg.endSpecific = offsets
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// parsePattern reads subscribePattern, a regular expression a whole topic
// name must match (Java's Pattern.matches, as Kafka's consumer applies it).
func (cfg *config) parsePattern(value string) error {
	v := strings.TrimSpace(value)
	if v == "" {
		return fmt.Errorf("kafka source: option subscribePattern is empty: give a regular expression matching whole topic names, such as \"events-.*\"")
	}
	re, err := regexp.Compile("^(?:" + v + ")$")
	if err != nil {
		return fmt.Errorf("kafka source: option subscribePattern %q is not a valid regular expression: %w", v, err)
	}
	cfg.pattern, cfg.patternText = re, v
	return nil
}

// parseAssign reads assign, JSON naming the partitions to read, such as
// {"topicA":[0,1],"topicB":[2,4]}.
func (cfg *config) parseAssign(value string) error {
	var m map[string][]int32
	if err := json.Unmarshal([]byte(strings.TrimSpace(value)), &m); err != nil || len(m) == 0 {
		return fmt.Errorf("kafka source: option assign must be JSON naming topics and their partitions, such as {\"topicA\":[0,1],\"topicB\":[2,4]}, got %q", value)
	}
	cfg.assigned = make(map[string]map[int32]bool, len(m))
	for t, ps := range m {
		if t == "" || len(ps) == 0 {
			return fmt.Errorf("kafka source: option assign names topic %q with no partition: list its partitions, such as {%q:[0,1]}", t, t)
		}
		cfg.assigned[t] = make(map[int32]bool, len(ps))
		for _, p := range ps {
			if p < 0 {
				return fmt.Errorf("kafka source: option assign names partition %d of %q: partitions are numbered from 0", p, t)
			}
			cfg.assigned[t][p] = true
		}
		cfg.topics = append(cfg.topics, t)
	}
	sort.Strings(cfg.topics)
	return nil
}

// parseStartingOffsets reads "earliest", "latest" or a JSON offset map in
// which -2 means earliest and -1 latest.
func (cfg *config) parseStartingOffsets(value string) error {
	v := strings.TrimSpace(value)
	switch strings.ToLower(v) {
	case "latest":
		cfg.start = startLatest
		return nil
	case "earliest":
		cfg.start = startEarliest
		return nil
	}
	offsets, err := ParseOffset(source.Offset(v))
	if err != nil || offsets == nil {
		return fmt.Errorf("kafka source: option startingOffsets must be \"earliest\", \"latest\" or JSON such as {\"events\":{\"0\":23,\"1\":-2}} (-2 earliest, -1 latest), got %q", value)
	}
	for t, ps := range offsets {
		for p, o := range ps {
			if o < specificEarliest {
				return fmt.Errorf("kafka source: startingOffsets for %s-%d is %d: use an offset >= 0, -2 for earliest or -1 for latest", t, p, o)
			}
		}
	}
	cfg.start = startSpecific
	cfg.specific = offsets
	return nil
}

func unknownOptionError(key string) error {
	names := append([]string(nil), ValidOptions...)
	msg := fmt.Sprintf("kafka source: unknown option %q", key)
	if near := nearest(key, append(names, unsupportedOptions...)); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return fmt.Errorf("%s; valid options are: %s, and any other kafka.* consumer setting (ignored)", msg, strings.Join(names, ", "))
}

// nearest returns the candidate closest to s by edit distance, ignoring
// case, when it is close enough to be a likely typo.
func nearest(s string, candidates []string) string {
	best, bestDist := "", 4
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func unique(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func parseBool(name, value string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("kafka source: option %s must be true or false, got %q", name, value)
}

func parseBytes(name, value string) (int32, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 32)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("kafka source: option %s must be a positive number of bytes below 2 GiB, got %q", name, value)
	}
	return int32(n), nil
}

// parseTimeout reads a duration such as "30s" or "2m", or a plain number of
// milliseconds, as Spark's Kafka timeouts are given.
func parseTimeout(name, value string) (time.Duration, error) {
	v := strings.TrimSpace(value)
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("kafka source: option %s must be a positive duration such as \"30s\" or \"2m\", or a number of milliseconds, got %q", name, value)
}
