package atlas

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestNilQueryHandleSaysHowToGetTheQueryBack: a handle a previous cell
// stored in a package variable is nil in the next cell (GoNB keeps the
// declaration, not the value). Every method answers without a panic, the
// ones with an error with ErrNilQuery, which names Streams().Get.
func TestNilQueryHandleSaysHowToGetTheQueryBack(t *testing.T) {
	var q *StreamingQuery
	for name, call := range map[string]func() error{
		"Stop":                    q.Stop,
		"AwaitTermination":        q.AwaitTermination,
		"AwaitTerminationContext": func() error { return q.AwaitTerminationContext(context.Background()) },
		"AwaitTerminationTimeout": func() error { _, err := q.AwaitTerminationTimeout(time.Millisecond); return err },
		"ProcessAllAvailable":     q.ProcessAllAvailable,
		"Exception":               q.Exception,
		"Watch":                   func() error { return q.Watch(context.Background(), time.Millisecond) },
		"ExplainString":           func() error { _, err := q.ExplainString(true); return err },
	} {
		if err := call(); !errors.Is(err, ErrNilQuery) {
			t.Errorf("%s on a nil handle: %v, want ErrNilQuery", name, err)
		}
	}
	if !strings.Contains(ErrNilQuery.Error(), "spark.Streams().Get(name)") {
		t.Errorf("ErrNilQuery does not name the fix: %v", ErrNilQuery)
	}
	if st := q.Status(); st.Message != ErrNilQuery.Error() {
		t.Errorf("Status on a nil handle: %+v", st)
	}
	if q.IsActive() || q.ID() != "" || q.RunID() != "" || q.Name() != "" || q.CheckpointLocation() != "" ||
		q.LastProgress() != nil || q.RecentProgress() != nil || q.Totals() != (QueryTotals{}) {
		t.Error("a nil handle reports a query")
	}
	q.Explain() // prints the error, no panic
}

// TestEveryStreamingQueryMethodIsNilSafe calls every exported method of
// *StreamingQuery on a nil handle by reflection, so that a method added
// later is covered too: none panics, and every error it returns is
// ErrNilQuery (which names spark.Streams().Get(name)).
func TestEveryStreamingQueryMethodIsNilSafe(t *testing.T) {
	var q *StreamingQuery
	v := reflect.ValueOf(q)
	errType := reflect.TypeFor[error]()
	for i := 0; i < v.Type().NumMethod(); i++ {
		m := v.Type().Method(i)
		args := []reflect.Value{v}
		for j := 1; j < m.Type.NumIn(); j++ {
			switch in := m.Type.In(j); in {
			case reflect.TypeFor[context.Context]():
				args = append(args, reflect.ValueOf(context.Background()))
			case reflect.TypeFor[time.Duration]():
				args = append(args, reflect.ValueOf(time.Millisecond))
			default:
				args = append(args, reflect.Zero(in))
			}
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s on a nil handle panics: %v", m.Name, r)
				}
			}()
			for _, out := range m.Func.Call(args) {
				if out.Type() != errType {
					continue
				}
				if err, _ := out.Interface().(error); !errors.Is(err, ErrNilQuery) {
					t.Errorf("%s on a nil handle returns %v, want ErrNilQuery", m.Name, err)
				}
			}
		}()
	}
}
