package displaytest

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"
)

// chartCallRE matches the head of one chart script of a frame.
var chartCallRE = regexp.MustCompile(`var elemId="([^"]+)",slot="([^"]+)",option=(.*?),timeY=(true|false),tries=0;`)

// Drawn is one chart a fragment draws: the element and slot its script
// draws into, its echarts option (as sent, and read back), and whether its
// value axis holds times.
type Drawn struct {
	Elem, Slot string
	Raw        string
	Option     Option
	TimeY      bool
}

// Option is the part of an echarts option the tests read back.
type Option struct {
	Animation *bool `json:"animation"`
	UseUTC    bool  `json:"useUTC"`
	Title     struct {
		Text    string `json:"text"`
		Subtext string `json:"subtext"`
	} `json:"title"`
	XAxis []struct {
		Data []string `json:"data"`
	} `json:"xAxis"`
	YAxis []struct {
		Type string `json:"type"`
	} `json:"yAxis"`
	Series []struct {
		Name       string `json:"name"`
		Type       string `json:"type"`
		Stack      string `json:"stack"`
		YAxisIndex int    `json:"yAxisIndex"`
		Data       []struct {
			Value json.RawMessage `json:"value"`
		} `json:"data"`
	} `json:"series"`
}

// ParseCharts reads back every chart script of a fragment, in order.
func ParseCharts(t testing.TB, fragment string) []Drawn {
	t.Helper()
	var out []Drawn
	for _, m := range chartCallRE.FindAllStringSubmatch(fragment, -1) {
		d := Drawn{Elem: m[1], Slot: m[2], Raw: m[3], TimeY: m[4] == "true"}
		if err := json.Unmarshal([]byte(m[3]), &d.Option); err != nil {
			t.Fatalf("chart option is not valid JSON: %v\n%s", err, m[3])
		}
		out = append(out, d)
	}
	return out
}

// Values returns series s of o as numbers times 100 (rates carry two
// decimals); echarts' missing marker "-" becomes -1.
func Values(t testing.TB, o Option, s int) []int64 {
	t.Helper()
	var out []int64
	for _, d := range o.Series[s].Data {
		if string(d.Value) == `"-"` {
			out = append(out, -1)
			continue
		}
		f, err := strconv.ParseFloat(string(d.Value), 64)
		if err != nil {
			t.Fatalf("series %s value %s: %v", o.Series[s].Name, d.Value, err)
		}
		out = append(out, int64(f*100))
	}
	return out
}

// DecodeOption reads back one echarts option (JSON).
func DecodeOption(t testing.TB, option string) Option {
	t.Helper()
	var o Option
	if err := json.Unmarshal([]byte(option), &o); err != nil {
		t.Fatalf("chart option is not valid JSON: %v\n%s", err, option)
	}
	return o
}
