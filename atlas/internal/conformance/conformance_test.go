package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// EnvCorpus names the spark-gold directory when it is not at
// ../shared/spark-gold beside the repository.
const EnvCorpus = "ATLAS_SPARK_GOLD"

// EnvReport, when set, names a file that receives every example's outcome.
const EnvReport = "ATLAS_CONFORMANCE_REPORT"

// EnvOnly, when set, is a regular expression: only the examples whose
// query it matches run, each outcome is logged, and the floor is not
// checked (for working on a few examples at a time).
const EnvOnly = "ATLAS_CONFORMANCE_ONLY"

// perQuery bounds one example, so a query that hangs fails alone.
const perQuery = 20 * time.Second

// corpusDir finds the corpus: $ATLAS_SPARK_GOLD, else ../shared/spark-gold
// beside the directory holding go.mod.
func corpusDir(t *testing.T) string {
	if d := os.Getenv(EnvCorpus); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "spark-gold")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func loadCorpus(t *testing.T) []Case {
	dir := corpusDir(t)
	cases, err := Load(dir)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true needs the spark-gold corpus (set %s): %v", EnvCorpus, err)
		}
		t.Skipf("no spark-gold corpus (set %s to its directory): %v", EnvCorpus, err)
	}
	return cases
}

func floor(t *testing.T) float64 {
	data, err := os.ReadFile(filepath.Join("testdata", "floor.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 64)
	if err != nil {
		t.Fatalf("testdata/floor.txt: %v", err)
	}
	return f
}

// TestSparkFunctionExamples runs Spark's function examples through Atlas
// over Spark Connect and fails when the share of deterministic examples
// whose rows, column names and types match Spark's falls below the floor.
func TestSparkFunctionExamples(t *testing.T) {
	cases := loadCorpus(t)
	min := floor(t)
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", NoAuth: true, Conf: map[string]string{engine.ConfHome: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	spark := atlas.Builder().AppName("conformance").Remote("sc://" + srv.Addr()).GetOrCreate()
	defer spark.Close()
	// Spark's documentation examples were run in America/Los_Angeles.
	if _, err := spark.SQL("SET spark.sql.session.timeZone=America/Los_Angeles"); err != nil {
		t.Logf("SET spark.sql.session.timeZone: %v", err)
	}
	loc := sessionZone(t, spark)
	only, err := onlyFilter()
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	tally := NewTally()
	start := time.Now()
	for _, c := range cases {
		if only != nil && !only.MatchString(c.Query) {
			continue
		}
		o, msg := run(spark, c, loc)
		if only != nil {
			t.Logf("%s\t%s\t%s", outcomeName(o), c.Query, msg)
		}
		tally.Add(c, o, msg)
		fmt.Fprintf(&report, "%s\t%s\t%s\t%s\n", c.Group, outcomeName(o), c.Query, strings.ReplaceAll(msg, "\n", " "))
	}
	var out strings.Builder
	tally.Print(&out, 40)
	t.Logf("Spark function examples (%d, %s, session time zone %s):\n%s", len(cases), time.Since(start).Round(time.Second), loc, out.String())
	if path := os.Getenv(EnvReport); path != "" {
		if err := os.WriteFile(path, []byte(report.String()), 0o644); err != nil {
			t.Errorf("write the report: %v", err)
		}
	}
	if rate := tally.MatchRate(); rate < min && only == nil {
		t.Errorf("%.1f%% of the deterministic examples match Spark, below the floor of %.1f%% in testdata/floor.txt", rate, min)
	}
}

// onlyFilter compiles $ATLAS_CONFORMANCE_ONLY, or returns nil when unset.
func onlyFilter() (*regexp.Regexp, error) {
	pat := os.Getenv(EnvOnly)
	if pat == "" {
		return nil, nil
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvOnly, err)
	}
	return re, nil
}

func sessionZone(t *testing.T, spark *atlas.Session) *time.Location {
	name, err := spark.Conf().Get("spark.sql.session.timeZone", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("session time zone %q: %v", name, err)
	}
	return loc
}

// run executes one example and compares its result with Spark's.
func run(spark *atlas.Session, c Case, loc *time.Location) (Outcome, string) {
	ctx, cancel := context.WithTimeout(context.Background(), perQuery)
	defer cancel()
	df, err := spark.SQLContext(ctx, c.Query)
	if err != nil {
		return Failed, err.Error()
	}
	schema, recs, err := df.Collect(ctx)
	if err != nil {
		return Failed, err.Error()
	}
	defer release(recs)
	if !Deterministic(c.Query) {
		return Ran, ""
	}
	if diff := Compare(c, schema, recs, loc); diff != "" {
		return Mismatch, diff
	}
	return Match, ""
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

func outcomeName(o Outcome) string {
	return [...]string{Failed: "error", Mismatch: "mismatch", Match: "match", Ran: "ran"}[o]
}
