package functions

import "github.com/atlas-lakehouse/atlas/atlas/internal/expr"

func datetimeDefs() []*Def {
	return []*Def{
		{Name: "window_time", Group: "datetime", MinArgs: 1, MaxArgs: 1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.WindowTime{X: a[0]}, nil
		}},
		{Name: "to_timestamp", Group: "datetime", MinArgs: 1, MaxArgs: 2, Build: toTimestamp(false)},
		{Name: "try_to_timestamp", Group: "datetime", MinArgs: 1, MaxArgs: 2, Build: toTimestamp(true)},
		{Name: "date_format", Group: "datetime", MinArgs: 2, MaxArgs: 2, Build: func(name string, a []expr.Expr) (expr.Expr, error) {
			f, err := stringLit(name, a, 1, "the format")
			if err != nil {
				return nil, err
			}
			return &expr.DateFormat{X: a[0], Format: f}, nil
		}},
		{Name: "current_timestamp", Aliases: []string{"now"}, Group: "datetime", MinArgs: 0, MaxArgs: 0, Build: func(string, []expr.Expr) (expr.Expr, error) {
			return expr.CurrentTimestamp{}, nil
		}},
	}
}

func toTimestamp(try bool) func(string, []expr.Expr) (expr.Expr, error) {
	return func(name string, a []expr.Expr) (expr.Expr, error) {
		f := ""
		if len(a) == 2 {
			var err error
			if f, err = stringLit(name, a, 1, "the format"); err != nil {
				return nil, err
			}
		}
		return &expr.ToTimestamp{X: a[0], Format: f, Try: try}, nil
	}
}
