package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
)

// lab07Edits and lab07Txns are how many edits and transactions lab 7's
// bridge writes, and lab07Files how many files the phones upload.
const (
	lab07Edits = 6_000
	lab07Txns  = 3_000
	lab07Files = 12
)

// readLinesOfDir returns the lines of the visible *.json files of dir, file
// by file, in name order (the bridge names them by increasing Unix millis).
func readLinesOfDir(t *testing.T, dir string) [][][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "[0-9]*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no files in %s (%v)", dir, err)
	}
	sort.Strings(names)
	var out [][][]byte
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		var lines [][]byte
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
		f.Close()
		out = append(out, lines)
	}
	return out
}

// checkLab07 recomputes lab 7's outputs from the files the bridge wrote:
// part 1's edits per wiki, bot and minute; part 2's hourly report, the
// rows dropped behind the 1-hour watermark and the late table, by
// replaying the files one micro-batch each with Spark's rule (a row is late
// when its window ended at or before the previous batch's watermark).
func checkLab07(t *testing.T, st *privateStack, cells []executedCell) {
	checkLiveView(t, cells, "files")
	if out := taggedCell(t, cells, "schema").stdout(); !strings.Contains(out, "|-- window_start: timestamp") {
		t.Errorf("the schema cell printed no schema:\n%s", out)
	}
	ctx := context.Background()
	e := st.kafka(t)
	dir := filepath.Join(st.home, "lab07")

	// Part 1.
	want := map[string]int64{}
	n := 0
	for _, lines := range readLinesOfDir(t, filepath.Join(dir, "stream_in")) {
		for _, l := range lines {
			var ed produce.Edit
			if err := json.Unmarshal(l, &ed); err != nil {
				t.Fatalf("edit %q: %v", l, err)
			}
			n++
			minute := time.Unix(ed.Timestamp, 0).UTC().Truncate(time.Minute)
			want[fmt.Sprintf("%s|%s|%v", minute.Format(time.RFC3339), ed.Wiki, ed.Bot)]++
		}
	}
	if n != lab07Edits {
		t.Fatalf("the bridge wrote %d edits, want %d", n, lab07Edits)
	}
	if out := taggedCell(t, cells, "files").stdout(); !strings.Contains(out, fmt.Sprintf("the file query read %d edits", lab07Edits)) {
		t.Errorf("the file query did not read every edit once:\n%s", out)
	}
	rows, err := e.session.Read().Parquet(filepath.Join(dir, "per_wiki")).Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		got[fmt.Sprintf("%s|%v|%v", r["window_start"].(time.Time).UTC().Format(time.RFC3339), r["wiki"], r["bot"])] = r["count"].(int64)
	}
	diffCounts(t, "per_wiki", got, want)

	// Part 2: one file a batch. The late filter uses the previous batch's
	// watermark (Spark 3.4+); the margin check below makes sure the data
	// decides the same under this batch's watermark, so the reference does
	// not hang on that detail.
	files := readLinesOfDir(t, filepath.Join(dir, "phones_in"))
	if len(files) != lab07Files {
		t.Fatalf("the bridge wrote %d phone files, want %d", len(files), lab07Files)
	}
	hour := int64(time.Hour / time.Millisecond)
	const unset = int64(-1 << 62)
	wms := []int64{unset} // wms[k]: batch k's own watermark, from the files before k
	maxMs := unset
	windows := map[groupWindow]nvol{}
	lateIDs := map[int64]bool{}
	total := 0
	for k, lines := range files {
		lateWM := unset
		if k > 0 {
			lateWM = wms[k-1]
		}
		for _, l := range lines {
			x := decodeMomo(t, l)
			total++
			end := x.ms - x.ms%hour + hour
			isLate := lateWM != unset && end <= lateWM
			if (wms[k] != unset && end <= wms[k]) != isLate {
				t.Fatalf("transaction %d is late under one watermark and not the other: the data is too close to the boundary", x.id)
			}
			maxMs = max(maxMs, x.ms)
			if isLate {
				lateIDs[x.id] = true
				continue
			}
			key := groupWindow{x.ms - x.ms%hour, groupName(x.district)}
			w := windows[key]
			w.n++
			w.volume += x.amount
			windows[key] = w
		}
		wms = append(wms, max(wms[k], maxMs-hour))
	}
	if total != lab07Txns || len(lateIDs) == 0 {
		t.Fatalf("%d transactions, %d late: the data does not test late rows", total, len(lateIDs))
	}
	final := wms[len(wms)-1]
	report := map[groupWindow]nvol{}
	for k, w := range windows {
		if k.startMs+hour <= final {
			report[k] = w
		}
	}
	rows, err = e.session.Table("lakehouse.lab07.hourly_volume").Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gotR := map[groupWindow]nvol{}
	for _, r := range rows {
		k := groupWindow{r["window_start"].(time.Time).UnixMilli(), groupName(r["district"])}
		if _, dup := gotR[k]; dup {
			t.Errorf("hour %v written twice", k)
		}
		gotR[k] = nvol{r["n"].(int64), r["volume"].(float64)}
	}
	diffGroupWindows(t, "hourly_volume", gotR, report)

	rows, err = e.session.Table("lakehouse.lab07.hourly_volume_late").Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gotLate := map[int64]bool{}
	for _, r := range rows {
		id := r["txn_id"].(int64)
		if gotLate[id] || !lateIDs[id] || r["_reason"] != "late" {
			t.Errorf("late table row %v: twice, not late, or not reason late", r)
		}
		gotLate[id] = true
	}
	if len(gotLate) != len(lateIDs) {
		t.Errorf("the late table holds %d transactions, the reference %d", len(gotLate), len(lateIDs))
	}
	run := taggedCell(t, cells, "late-run").stdout()
	m := regexp.MustCompile(`1\. counted: (\d+) rows dropped by the watermark \(progress\), (\d+) \(Totals\)`).FindStringSubmatch(run)
	if m == nil {
		t.Fatalf("the late-run cell printed no count:\n%s", run)
	}
	for _, s := range m[1:] {
		if c, _ := strconv.Atoi(s); c != len(lateIDs) {
			t.Errorf("counted %d rows dropped, the reference %d:\n%s", c, len(lateIDs), run)
		}
	}
	if res := taggedCell(t, cells, "late-result").stdout(); !strings.Contains(res, fmt.Sprintf("holds %d rows (hour, district)", len(report))) {
		t.Errorf("the result cell does not show the %d report rows:\n%s", len(report), res)
	}
	if kept := taggedCell(t, cells, "late-kept").stdout(); !strings.Contains(kept, fmt.Sprintf("holds %d rows", len(lateIDs))) {
		t.Errorf("the kept cell does not show the %d late rows:\n%s", len(lateIDs), kept)
	}
}
