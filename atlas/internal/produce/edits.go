package produce

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Edit is one Wikimedia-like recent change as its JSON value is written,
// with the fields of the EventStreams recentchange schema the course's lab
// reads: {"wiki","type","bot","timestamp","title","user"}; Timestamp is in
// Unix seconds, as Wikimedia sends it.
type Edit struct {
	Wiki      string `json:"wiki"`
	Type      string `json:"type"`
	Bot       bool   `json:"bot"`
	Timestamp int64  `json:"timestamp"`
	Title     string `json:"title"`
	User      string `json:"user"`
}

// editWikis are the sample's wikis and editWikiWeights their shares.
var (
	editWikis       = [...]string{"enwiki", "wikidatawiki", "commonswiki", "frwiki", "dewiki", "swwiki", "rwwiki"}
	editWikiWeights = [...]float64{35, 25, 15, 10, 10, 3, 2}
	editTypes       = [...]string{"edit", "new", "log", "categorize"}
	editTypeWeights = [...]float64{70, 8, 10, 12}
)

// Defaults of EditsConfig.
const (
	DefaultEditsTopic = "wiki_edits"
	DefaultEditsSpan  = 30 * time.Minute
	DefaultEditors    = 600
	DefaultTitles     = 400
)

// DefaultEditsStart is the first edit's time when EditsConfig.Start is zero.
func DefaultEditsStart() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) }

// EditsConfig configures the edits generator; zero fields take the defaults.
type EditsConfig struct {
	Count int64
	Seed  int64
	Start time.Time
	// Span is the time the edits cover, in order (timestamps never decrease).
	Span time.Duration
	// Editors and Titles are the pool sizes; both are drawn Zipf-skewed, so
	// a few editors and titles dominate, as on a real wiki.
	Editors, Titles int
	// BotShare is the fraction of edits made by bots (default 0.3).
	BotShare float64
	Topic    string
	Rate     float64
}

func (c EditsConfig) withDefaults() (EditsConfig, error) {
	if c.Start.IsZero() {
		c.Start = DefaultEditsStart()
	}
	c.Start = c.Start.UTC().Truncate(time.Second)
	if c.Span == 0 {
		c.Span = DefaultEditsSpan
	}
	if c.Editors == 0 {
		c.Editors = DefaultEditors
	}
	if c.Titles == 0 {
		c.Titles = DefaultTitles
	}
	if c.BotShare == 0 {
		c.BotShare = 0.3
	}
	if c.Topic == "" {
		c.Topic = DefaultEditsTopic
	}
	if c.Count < 0 || c.Span < 0 || c.Editors < 2 || c.Titles < 2 || c.Rate < 0 || c.BotShare < 0 || c.BotShare > 1 {
		return c, fmt.Errorf("edits config: count, span and rate must not be negative, editors and titles at least 2, bot share in [0, 1]: %+v", c)
	}
	return c, nil
}

// EditGenerator yields the edits stream in order, in constant memory.
type EditGenerator struct {
	cfg            EditsConfig
	r              *rand.Rand
	wikis, types   weighted
	editors, title *rand.Zipf
	next           int64
}

// NewEditGenerator validates cfg and returns a generator before its first edit.
func NewEditGenerator(cfg EditsConfig) (*EditGenerator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	r := newRand(cfg.Seed, 0x6564697473) // "edits"
	return &EditGenerator{
		cfg: cfg, r: r,
		wikis: newWeighted(editWikiWeights[:]), types: newWeighted(editTypeWeights[:]),
		editors: rand.NewZipf(r, 1.2, 2, uint64(cfg.Editors-1)),
		title:   rand.NewZipf(r, 1.1, 4, uint64(cfg.Titles-1)),
	}, nil
}

// Config returns the generator's config with defaults applied.
func (g *EditGenerator) Config() EditsConfig { return g.cfg }

// Next returns the next edit and its JSON value, or false at the end.
func (g *EditGenerator) Next() (Edit, []byte, bool) {
	c := &g.cfg
	if g.next >= c.Count {
		return Edit{}, nil, false
	}
	i := g.next
	g.next++
	sec := c.Span.Milliseconds() * i / max(c.Count, 1) / 1000
	e := Edit{
		Wiki:      editWikis[g.wikis.pick(g.r)],
		Type:      editTypes[g.types.pick(g.r)],
		Bot:       g.r.Float64() < c.BotShare,
		Timestamp: c.Start.Unix() + sec,
		Title:     fmt.Sprintf("Page_%03d", g.title.Uint64()),
		User:      fmt.Sprintf("Editor%03d", g.editors.Uint64()),
	}
	if e.Bot {
		e.User = fmt.Sprintf("Bot%02d", g.r.IntN(12))
	}
	v, err := json.Marshal(e)
	if err != nil {
		panic(fmt.Sprintf("edits: encode edit %d: %v", i, err)) // plain fields: cannot fail
	}
	return e, v, true
}

// EditsSummary counts what ProduceEdits sent.
type EditsSummary struct {
	Topic   string
	Records int64
	Bots    int64
	Elapsed time.Duration
}

// String is the line the CLI prints.
func (s EditsSummary) String() string {
	return fmt.Sprintf("produced %d edits (%d by bots) to %s in %s", s.Records, s.Bots, s.Topic, s.Elapsed.Round(time.Millisecond))
}

// ProduceEdits sends the edits cfg describes to cfg.Topic, keyed by wiki.
func ProduceEdits(ctx context.Context, client *kgo.Client, cfg EditsConfig, progress func(done, total int64)) (EditsSummary, error) {
	g, err := NewEditGenerator(cfg)
	if err != nil {
		return EditsSummary{}, err
	}
	cfg = g.Config()
	sum := EditsSummary{Topic: cfg.Topic}
	next := func() (key, value []byte, ok bool) {
		e, v, ok := g.Next()
		if ok {
			sum.Records++
			if e.Bot {
				sum.Bots++
			}
		}
		return []byte(e.Wiki), v, ok
	}
	sum.Elapsed, err = produceAll(ctx, client, cfg.Topic, cfg.Count, cfg.Rate, next, progress)
	if err != nil {
		return sum, fmt.Errorf("produce edits to %q: %w", cfg.Topic, err)
	}
	return sum, nil
}
