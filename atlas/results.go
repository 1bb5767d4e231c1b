package atlas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
)

// Collect runs the plan and returns its rows as Arrow record batches (the
// caller releases them). The schema is the result's, also when it has no rows.
func (df *DataFrame) Collect(ctx context.Context) (*arrow.Schema, []arrow.RecordBatch, error) {
	if df.err != nil {
		return nil, nil, df.err
	}
	var (
		schema *arrow.Schema
		recs   []arrow.RecordBatch
		dt     *pb.DataType
	)
	release := func() {
		for _, r := range recs {
			r.Release()
		}
	}
	err := df.s.execute(ctx, df.plan(), func(resp *pb.ExecutePlanResponse) error {
		if s := resp.GetSchema(); s != nil {
			dt = s
		}
		b := resp.GetArrowBatch()
		if b == nil {
			return nil
		}
		rd, err := ipc.NewReader(bytes.NewReader(b.GetData()))
		if err != nil {
			return fmt.Errorf("decode the result's Arrow batch: %w", err)
		}
		defer rd.Release()
		schema = rd.Schema()
		for rd.Next() {
			rec := rd.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
		}
		if err := rd.Err(); err != nil {
			return fmt.Errorf("decode the result's Arrow batch: %w", err)
		}
		return nil
	})
	if err != nil {
		release()
		return nil, nil, err
	}
	if schema == nil && dt != nil {
		if schema, err = arrowSchema(dt); err != nil {
			return nil, nil, err
		}
	}
	if schema == nil {
		// An empty result without a schema: ask for it.
		if schema = df.Schema(); schema == nil {
			if e := df.Err(); e != nil {
				return nil, nil, e
			}
			return nil, nil, errors.New("collect: the server sent no schema")
		}
	}
	return schema, recs, nil
}

// Rows runs the plan and returns its rows by column name.
func (df *DataFrame) Rows(ctx context.Context) ([]Row, error) {
	schema, recs, err := df.Collect(ctx)
	if err != nil {
		return nil, err
	}
	defer releaseAll(recs)
	return toRows(schema, recs), nil
}

// Count returns the number of rows, sent as PySpark sends count(): an
// aggregate count(1) over the plan, whose one value is the answer.
func (df *DataFrame) Count(ctx context.Context) (int64, error) {
	rows, err := df.GroupBy().Agg(Count(Lit(1))).Rows(ctx)
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, fmt.Errorf("count: the server returned %d rows, want one row of one column", len(rows))
	}
	for _, v := range rows[0] {
		if n, ok := v.(int64); ok {
			return n, nil
		}
		return 0, fmt.Errorf("count: the server returned a %T", v)
	}
	return 0, nil
}

// Show prints the first n rows (20 by default) as a table: HTML in a
// notebook, text like Spark's show() elsewhere.
func (df *DataFrame) Show(n ...int) error {
	limit := 20
	if len(n) > 0 {
		limit = n[0]
	}
	return df.show(limit, true)
}

// ShowFull prints the first n rows without cutting long values to 20
// characters, as show(n, truncate=False).
func (df *DataFrame) ShowFull(n int) error { return df.show(n, false) }

// ShowString returns the table show(n, truncate, vertical) prints,
// rendered by the server as Spark's Dataset.showString: truncate > 0 cuts
// cells to that many characters and right-aligns them (20 is show()'s
// default, 0 cuts nothing), vertical prints one -RECORD block per row.
func (df *DataFrame) ShowString(ctx context.Context, n, truncate int, vertical bool) (string, error) {
	return df.rendered(ctx, "showString", "show_string", n, truncate, func(n, truncate int32) *pb.Relation {
		return &pb.Relation{RelType: &pb.Relation_ShowString{ShowString: &pb.ShowString{
			Input: df.rel, NumRows: n, Truncate: truncate, Vertical: vertical,
		}}}
	})
}

// rendered runs the relation render builds over df (ShowString or
// HtmlString, named what: the server renders the first n rows) and returns
// the one string it answers in column col.
func (df *DataFrame) rendered(ctx context.Context, what, col string, n, truncate int, render func(n, truncate int32) *pb.Relation) (string, error) {
	if df.err != nil {
		return "", df.err
	}
	if n < 0 || n > 1<<31-1 || truncate < 0 || truncate > 1<<31-1 {
		return "", fmt.Errorf("%s(%d, %d): want 0 to 2147483647 rows and a truncate of 0 to 2147483647", what, n, truncate)
	}
	rows, err := df.s.newDF(render(int32(n), int32(truncate))).Rows(ctx)
	if err != nil {
		return "", err
	}
	if len(rows) != 1 {
		return "", fmt.Errorf("%s: the server returned %d rows, want 1", what, len(rows))
	}
	text, ok := rows[0][col].(string)
	if !ok {
		return "", fmt.Errorf("%s: the server returned %v, want a string column %s", what, rows[0], col)
	}
	return text, nil
}

// ShowVertical prints the first n rows one column value per line, as
// show(n, vertical=True) prints them.
func (df *DataFrame) ShowVertical(n int) error {
	text, err := df.ShowString(context.Background(), n, 20, true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return err
	}
	fmt.Println(text)
	return nil
}

func (df *DataFrame) show(limit int, truncate bool) error {
	width := 0
	if truncate {
		width = showTruncate
	}
	if err := df.showOn(view.DetectSurface(), max(limit, 0), width); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return err
	}
	return nil
}

// showTruncate is show()'s default cut: cells longer than 20 characters.
const showTruncate = 20

// showOn shows the first n rows on s as Spark Connect clients do: the
// server renders the table (the client links no table renderer), as
// HtmlString (Dataset.htmlString) for a notebook and as ShowString
// (Dataset.showString) for text, which is printed with a newline as
// show() prints it. A server without HtmlString (an older Atlas) gets its
// text table shown preformatted in the notebook.
func (df *DataFrame) showOn(s view.Surface, n, truncate int) error {
	ctx := context.Background()
	if !s.HTML() {
		text, err := df.ShowString(ctx, n, truncate, false)
		if err != nil {
			return err
		}
		fmt.Fprintln(s.Text(), text)
		return nil
	}
	frag, err := df.htmlString(ctx, n, truncate)
	var se *ServerError
	if errors.As(err, &se) && se.Code == CodeUnimplemented {
		var text string
		if text, err = df.ShowString(ctx, n, truncate, false); err == nil {
			frag = `<pre class="atlas-show">` + html.EscapeString(text) + `</pre>`
		}
	}
	if err != nil {
		return err
	}
	s.DisplayHTML(frag)
	s.Sync()
	return nil
}

// htmlString returns the HTML table of the first n rows the server renders
// for a notebook (Spark Connect's HtmlString relation).
func (df *DataFrame) htmlString(ctx context.Context, n, truncate int) (string, error) {
	return df.rendered(ctx, "htmlString", "html_string", n, truncate, func(n, truncate int32) *pb.Relation {
		return &pb.Relation{RelType: &pb.Relation_HtmlString{HtmlString: &pb.HtmlString{
			Input: df.rel, NumRows: n, Truncate: truncate,
		}}}
	})
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
