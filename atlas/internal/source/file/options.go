package file

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sinklog"
)

// Formats are the file formats the source reads.
var Formats = []string{"csv", "json", "parquet"}

// StreamOptions are the options of a file stream, in Spark's spelling
// (FileStreamOptions); names match case-insensitively.
var StreamOptions = []string{"path", "maxFilesPerTrigger", "latestFirst", "maxFileAge", "fileNameOnly", "cleanSource", "sourceArchiveDir", "pathGlobFilter"}

// FormatOptions are the options each format's reader takes.
var FormatOptions = map[string][]string{
	"json":    {"mode", "columnNameOfCorruptRecord", "timeZone"},
	"csv":     {"mode", "header", "sep", "delimiter", "comment", "nullValue", "nanValue", "positiveInf", "negativeInf"},
	"parquet": {},
}

// unsupported are Spark options the source knows but does not implement;
// naming one is an error that says so rather than a silent difference.
var unsupported = map[string]string{
	"multiline":                 "multiLine: only one JSON object per line (JSON Lines) is read",
	"columnnameofcorruptrecord": "columnNameOfCorruptRecord for CSV: malformed lines are counted in numMalformedRows instead (JSON has it)",
	"recursivefilelookup":       "recursiveFileLookup: files in subdirectories are always listed",
	"maxbytespertrigger":        "maxBytesPerTrigger: use maxFilesPerTrigger",
	"quote":                     "quote: CSV fields are quoted with \"",
	"escape":                    "escape: a quote inside a quoted CSV field is written twice (\"\")",
	"encoding":                  "encoding: files are read as UTF-8",
	"charset":                   "charset: files are read as UTF-8",
	"inferschema":               "inferSchema: give the schema with Schema(\"a int, b string\")",
}

// DefaultCorruptRecordColumn is Spark's default columnNameOfCorruptRecord
// (spark.sql.columnNameOfCorruptRecord).
const DefaultCorruptRecordColumn = "_corrupt_record"

// Mode is the parse mode for malformed records (Spark's ParseMode).
type Mode int

const (
	// Permissive keeps a malformed line as a row whose unparsable fields
	// are null, and counts it (Spark's default).
	Permissive Mode = iota
	// DropMalformed leaves malformed lines out, and counts them.
	DropMalformed
	// FailFast fails the batch at the first malformed line, naming the
	// file and the line.
	FailFast
)

func (m Mode) String() string {
	return [...]string{"PERMISSIVE", "DROPMALFORMED", "FAILFAST"}[m]
}

// CleanSource says what happens to a file once its batch is committed.
type CleanSource int

const (
	// CleanOff leaves files in place (the default).
	CleanOff CleanSource = iota
	// CleanArchive moves each file under sourceArchiveDir, keeping its
	// absolute path beneath it.
	CleanArchive
	// CleanDelete deletes each file.
	CleanDelete
)

// readOptions are the options of one format's reader.
type readOptions struct {
	mode Mode
	// corrupt is columnNameOfCorruptRecord (JSON): the column, when the
	// schema has it, that holds a malformed line's text in PERMISSIVE mode.
	corrupt   string
	header    bool
	sep       rune
	comment   rune
	nullValue string
	nanValue  string
	posInf    string
	negInf    string
}

// streamConfig are the parsed options of a file stream.
type streamConfig struct {
	path        string // absolute, may hold glob characters
	glob        bool
	maxFiles    int // 0: no limit
	latestFirst bool
	maxFileAge  time.Duration
	nameOnly    bool
	clean       CleanSource
	archiveDir  string
	globFilter  string
	read        readOptions
}

func lower(opts map[string]string) (map[string]string, []string) {
	out := make(map[string]string, len(opts))
	keys := make([]string, 0, len(opts))
	for k, v := range opts {
		lk := strings.ToLower(strings.TrimSpace(k))
		out[lk] = v
		keys = append(keys, lk)
	}
	sort.Strings(keys)
	return out, keys
}

// parseReadOptions reads the format options, rejecting the others unless
// stream is set (then the stream options are allowed too).
func parseReadOptions(format string, opts map[string]string, stream bool) (readOptions, error) {
	ro := readOptions{sep: ',', nanValue: "NaN", posInf: "Inf", negInf: "-Inf", corrupt: DefaultCorruptRecordColumn}
	valid := map[string]bool{}
	for _, o := range FormatOptions[format] {
		valid[strings.ToLower(o)] = true
	}
	if stream {
		for _, o := range StreamOptions {
			valid[strings.ToLower(o)] = true
		}
	}
	lo, keys := lower(opts)
	for _, k := range keys {
		v := lo[k]
		if why, ok := unsupported[k]; ok && !valid[k] {
			return ro, fmt.Errorf("%s source: option %s is not supported", format, why)
		}
		if !valid[k] {
			names := append([]string(nil), FormatOptions[format]...)
			if stream {
				names = append(names, StreamOptions...)
			}
			return ro, fmt.Errorf("%s source: unknown option %q; valid options: %s", format, k, strings.Join(names, ", "))
		}
		var err error
		switch k {
		case "mode":
			switch strings.ToUpper(strings.TrimSpace(v)) {
			case "PERMISSIVE":
				ro.mode = Permissive
			case "DROPMALFORMED":
				ro.mode = DropMalformed
			case "FAILFAST":
				ro.mode = FailFast
			default:
				err = fmt.Errorf("%s source: option mode must be PERMISSIVE, DROPMALFORMED or FAILFAST, got %q", format, v)
			}
		case "columnnameofcorruptrecord":
			ro.corrupt = v
		case "header":
			ro.header, err = parseBool(format, "header", v)
		case "sep", "delimiter":
			ro.sep, err = oneRune(format, k, v)
		case "comment":
			ro.comment, err = oneRune(format, k, v)
		case "nullvalue":
			ro.nullValue = v
		case "nanvalue":
			ro.nanValue = v
		case "positiveinf":
			ro.posInf = v
		case "negativeinf":
			ro.negInf = v
		case "timezone":
			if !strings.EqualFold(strings.TrimSpace(v), "UTC") {
				err = fmt.Errorf("%s source: option timeZone must be UTC (Atlas's session time zone), got %q", format, v)
			}
		}
		if err != nil {
			return ro, err
		}
	}
	return ro, nil
}

func oneRune(format, name, v string) (rune, error) {
	if v == `\t` {
		return '\t', nil
	}
	r := []rune(v)
	if len(r) != 1 || r[0] == '\n' || r[0] == '\r' || r[0] == '"' {
		return 0, fmt.Errorf("%s source: option %s must be one character (not a quote or a line break), got %q", format, name, v)
	}
	return r[0], nil
}

func parseBool(format, name, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%s source: invalid value %q for option %s, must be 'true' or 'false'", format, v, name)
}

// parseStreamOptions reads a file stream's options as Spark's
// FileStreamOptions does.
func parseStreamOptions(format string, opts map[string]string) (*streamConfig, error) {
	ro, err := parseReadOptions(format, opts, true)
	if err != nil {
		return nil, err
	}
	cfg := &streamConfig{maxFileAge: 7 * 24 * time.Hour, read: ro}
	lo, _ := lower(opts)
	p := strings.TrimSpace(lo["path"])
	if p == "" {
		return nil, fmt.Errorf("%s source: no path: give the directory to watch, as Load(\"in/\") or %s(\"in/\")", format, strings.ToUpper(format[:1])+format[1:])
	}
	p = strings.TrimPrefix(p, "file://")
	if cfg.path, err = filepath.Abs(p); err != nil {
		return nil, fmt.Errorf("%s source: path %q: %w", format, p, err)
	}
	cfg.glob = strings.ContainsAny(p, "*?[{")
	if !cfg.glob {
		if _, err := os.Stat(cfg.path); err != nil {
			return nil, fmt.Errorf("%s source: path does not exist: %s; create the directory first (files are picked up as they appear in it)", format, cfg.path)
		}
	}
	if v, ok := lo["maxfilespertrigger"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s source: invalid value '%s' for option 'maxFilesPerTrigger', must be a positive integer", format, v)
		}
		cfg.maxFiles = n
	}
	if v, ok := lo["latestfirst"]; ok {
		if cfg.latestFirst, err = parseBool(format, "latestFirst", v); err != nil {
			return nil, err
		}
	}
	if v, ok := lo["filenameonly"]; ok {
		if cfg.nameOnly, err = parseBool(format, "fileNameOnly", v); err != nil {
			return nil, err
		}
	}
	if v, ok := lo["maxfileage"]; ok {
		if cfg.maxFileAge, err = parseAge(v); err != nil {
			return nil, fmt.Errorf("%s source: invalid value %q for option maxFileAge: %w; use a duration such as \"7d\" or \"12h\"", format, v, err)
		}
	}
	cfg.globFilter = lo["pathglobfilter"]
	if cfg.globFilter != "" {
		if _, err := filepath.Match(cfg.globFilter, "x"); err != nil {
			return nil, fmt.Errorf("%s source: option pathGlobFilter %q: %w", format, cfg.globFilter, err)
		}
	}
	switch strings.ToLower(strings.TrimSpace(lo["cleansource"])) {
	case "", "off":
		cfg.clean = CleanOff
	case "archive":
		cfg.clean = CleanArchive
	case "delete":
		cfg.clean = CleanDelete
	default:
		return nil, fmt.Errorf("%s source: invalid value %q for option cleanSource, must be one of archive, delete, off", format, lo["cleansource"])
	}
	if ad := strings.TrimSpace(lo["sourcearchivedir"]); ad != "" {
		if cfg.archiveDir, err = filepath.Abs(strings.TrimPrefix(ad, "file://")); err != nil {
			return nil, fmt.Errorf("%s source: sourceArchiveDir %q: %w", format, ad, err)
		}
	}
	if cfg.clean != CleanOff && !cfg.glob && sinklog.Exists(cfg.path) {
		return nil, fmt.Errorf("%s source: cleanSource cannot be used on %s, the output of a file sink (it has %s): the sink's log would still list the files; drop the option, as Spark requires", format, cfg.path, sinklog.Dir)
	}
	if cfg.clean == CleanArchive {
		if cfg.archiveDir == "" {
			return nil, fmt.Errorf("%s source: cleanSource=archive needs the option sourceArchiveDir, the directory to move processed files to", format)
		}
		base := cfg.path
		if cfg.glob {
			base = globBase(base)
		}
		if within(cfg.archiveDir, base) || within(base, cfg.archiveDir) {
			return nil, fmt.Errorf("%s source: sourceArchiveDir %s and the source path %s must not contain one another: archived files would be listed again; choose a directory outside %s", format, cfg.archiveDir, cfg.path, base)
		}
	}
	return cfg, nil
}

// globBase is the directory part of a glob before its first pattern
// character.
func globBase(p string) string {
	i := strings.IndexAny(p, "*?[{")
	if i < 0 {
		return p
	}
	return filepath.Dir(p[:i+1])
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// parseAge reads a duration as Spark's timeStringAsMs: a number with a
// unit (ms, s, m, min, h, d; ms when none).
func parseAge(v string) (time.Duration, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(v[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not a number of time units")
	}
	unit := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := unit[strings.TrimSpace(v[i:])]
	if !ok {
		return 0, fmt.Errorf("unknown time unit %q", v[i:])
	}
	return time.Duration(n) * u, nil
}
