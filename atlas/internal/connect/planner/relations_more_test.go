package planner

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// rowsOf plans rel and renders its rows as "v1 v2 ..." lines, sorted
// unless ordered.
func rowsOf(t *testing.T, p *Planner, rel *pb.Relation, ordered bool) []string {
	t.Helper()
	df, err := p.Relation(context.Background(), rel)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := df.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cols := df.Columns()
	out := make([]string, len(rows))
	for i, r := range rows {
		vals := make([]string, len(cols))
		for j, c := range cols {
			vals[j] = fmt.Sprint(r[c])
		}
		out[i] = strings.Join(vals, " ")
	}
	if !ordered {
		sort.Strings(out)
	}
	return out
}

// sample is six events: users a..f, amounts 1..6 (amount 4 is repeated
// by user d and e to exercise the set operations).
func sample(t *testing.T) (*pb.Relation, []string, []int64) {
	users := []string{"a", "b", "c", "d", "e", "f"}
	amounts := []int64{5, 1, 6, 4, 4, 2}
	ts := make([]time.Time, len(users))
	for i := range ts {
		ts[i] = time.Unix(int64(i)*60, 0)
	}
	return events(t, users, ts, amounts), users, amounts
}

func newPlanner(t *testing.T) *Planner {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	return &Planner{Session: s}
}

func wantEq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func sortBy(in *pb.Relation, col string) *pb.Relation {
	return &pb.Relation{RelType: &pb.Relation_Sort{Sort: &pb.Sort{Input: in, Order: []*pb.Expression_SortOrder{{
		Child: attr(col), Direction: pb.Expression_SortOrder_SORT_DIRECTION_ASCENDING}}}}}
}

func project(in *pb.Relation, cols ...string) *pb.Relation {
	es := make([]*pb.Expression, len(cols))
	for i, c := range cols {
		es[i] = attr(c)
	}
	return &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: in, Expressions: es}}}
}

// TestNewRelations: toDF, range, select after orderBy, tail, offset,
// intersect/except and na.drop, each against the answer worked out from
// the input by hand in Go.
func TestNewRelations(t *testing.T) {
	p := newPlanner(t)
	in, users, amounts := sample(t)

	got := rowsOf(t, p, project(&pb.Relation{RelType: &pb.Relation_ToDf{ToDf: &pb.ToDF{Input: in, ColumnNames: []string{"u", "t", "n"}}}}, "u", "n"), false)
	var want []string
	for i := range users {
		want = append(want, fmt.Sprintf("%s %d", users[i], amounts[i]))
	}
	sort.Strings(want)
	wantEq(t, "toDF then select the new names", got, want)

	got = rowsOf(t, p, &pb.Relation{RelType: &pb.Relation_Range{Range: &pb.Range{Start: proto.Int64(2), End: 11, Step: 3}}}, true)
	want = nil
	for i := int64(2); i < 11; i += 3 {
		want = append(want, fmt.Sprint(i))
	}
	wantEq(t, "range(2, 11, 3)", got, want)

	// users ordered by amount, then the user column only: b f d e a c.
	idx := []int{0, 1, 2, 3, 4, 5}
	sort.SliceStable(idx, func(a, b int) bool { return amounts[idx[a]] < amounts[idx[b]] })
	var byAmount []string
	for _, i := range idx {
		byAmount = append(byAmount, users[i])
	}
	wantEq(t, "orderBy then select", rowsOf(t, p, project(sortBy(in, "amount"), "user"), true), byAmount)
	wantEq(t, "tail(2) of the sorted users", rowsOf(t, p, &pb.Relation{RelType: &pb.Relation_Tail{Tail: &pb.Tail{Input: project(sortBy(in, "amount"), "user"), Limit: 2}}}, true), byAmount[4:])
	wantEq(t, "offset(4) of the sorted users", rowsOf(t, p, &pb.Relation{RelType: &pb.Relation_Offset{Offset: &pb.Offset{Input: project(sortBy(in, "amount"), "user"), Offset: 4}}}, true), byAmount[4:])

	amountsOnly := project(in, "amount")
	setop := func(typ pb.SetOperation_SetOpType, all bool) *pb.Relation {
		return &pb.Relation{RelType: &pb.Relation_SetOp{SetOp: &pb.SetOperation{LeftInput: amountsOnly, RightInput: project(&pb.Relation{RelType: &pb.Relation_Limit{Limit: &pb.Limit{Input: sortBy(in, "user"), Limit: 4}}}, "amount"),
			SetOpType: typ, IsAll: proto.Bool(all)}}}
	}
	// right side: amounts of a..d = 5 1 6 4; left: 5 1 6 4 4 2.
	wantEq(t, "intersect", rowsOf(t, p, setop(pb.SetOperation_SET_OP_TYPE_INTERSECT, false), false), []string{"1", "4", "5", "6"})
	wantEq(t, "except (subtract)", rowsOf(t, p, setop(pb.SetOperation_SET_OP_TYPE_EXCEPT, false), false), []string{"2"})
	wantEq(t, "exceptAll", rowsOf(t, p, setop(pb.SetOperation_SET_OP_TYPE_EXCEPT, true), false), []string{"2", "4"})
}

// TestSharedDataFrameRace: one planned DataFrame (a sort, as the official
// client's orderBy) used by several goroutines for tail, select and
// describe; each answer is right.
func TestSharedDataFrameRace(t *testing.T) {
	p := newPlanner(t)
	in, _, amounts := sample(t)
	df, err := p.Relation(context.Background(), sortBy(in, "amount"))
	if err != nil {
		t.Fatal(err)
	}
	sorted := append([]int64(nil), amounts...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
	var sum float64
	for _, a := range amounts {
		sum += float64(a)
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			n := 1 + g%3
			rows, err := df.Select("amount").Tail(ctx, n).Rows(ctx)
			if err != nil || len(rows) != n || rows[n-1]["amount"] != sorted[len(sorted)-1] {
				t.Errorf("goroutine %d: tail(%d) = %v, %v", g, n, rows, err)
			}
			d, err := df.Describe(ctx, "amount").Rows(ctx)
			if err != nil || len(d) != 5 || d[1]["amount"] != strconv.FormatFloat(sum/float64(len(amounts)), 'f', -1, 64) {
				t.Errorf("goroutine %d: describe = %v, %v", g, d, err)
			}
		}()
	}
	wg.Wait()
}
