package sql_test

import (
	"strings"
	"testing"
)

// TestBitmapAggregates checks the bitmap aggregates on bytes worked out by
// hand: bit p of bitmap_construct_agg is bit p%8 of byte p/8; OR, AND and
// XOR combine bytes, a short bitmap counting as zeros beyond its end; no
// rows give the initial bitmap (zeros, ones for AND), never NULL.
func TestBitmapAggregates(t *testing.T) {
	for _, c := range []struct{ q, rows string }{
		{"SELECT substring(hex(bitmap_construct_agg(col)), 0, 6) FROM VALUES (0L), (1L), (2L), (NULL), (9L) AS tab(col)", "070200"},
		{"SELECT length(bitmap_construct_agg(col)) FROM VALUES (0L) AS tab(col)", "4096"},
		{"SELECT substring(hex(bitmap_or_agg(unhex(col))), 0, 6) FROM VALUES ('10'), ('2001'), ('40') AS tab(col)", "700100"},
		{"SELECT substring(hex(bitmap_and_agg(unhex(col))), 0, 6) FROM VALUES ('F0FF'), ('70'), ('30') AS tab(col)", "300000"},
		{"SELECT substring(hex(bitmap_xor_agg(unhex(col))), 0, 6) FROM VALUES ('10'), ('30'), ('40') AS tab(col)", "600000"},
		{"SELECT substring(hex(bitmap_and_agg(unhex(col))), 0, 6) FROM VALUES ('10') AS tab(col) WHERE col = 'x'", "FFFFFF"},
		{"SELECT substring(hex(bitmap_or_agg(unhex(col))), 0, 6) FROM VALUES ('10') AS tab(col) WHERE col = 'x'", "000000"},
	} {
		_, rows, err := query(t, c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if rows != c.rows {
			t.Errorf("%s: got %s, want %s", c.q, rows, c.rows)
		}
	}
	for q, want := range map[string]string{
		"SELECT bitmap_construct_agg(col) FROM VALUES (32768L) AS tab(col)": "INVALID_BITMAP_POSITION",
		"SELECT bitmap_construct_agg(col) FROM VALUES (-1L) AS tab(col)":    "INVALID_BITMAP_POSITION",
		"SELECT bitmap_or_agg(col) FROM VALUES (1) AS tab(col)":             "BINARY",
	} {
		if _, _, err := query(t, q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %q", q, err, want)
		}
	}
}
