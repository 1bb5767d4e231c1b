package jsonx

import "bytes"

// fieldTable finds the column for a JSON key without allocating: a small
// open-addressing hash table (FNV-1a over the key bytes) sized to at least
// twice the number of fields, so a probe sequence is short.
type fieldTable struct {
	mask  uint32
	index []int32 // column index, or -1 for an empty bucket
	names []string
}

func newFieldTable(names []string) fieldTable {
	size := 8
	for size < 2*len(names) {
		size *= 2
	}
	t := fieldTable{mask: uint32(size - 1), index: make([]int32, size), names: names}
	for i := range t.index {
		t.index[i] = -1
	}
	for i, n := range names {
		h := hashKey([]byte(n)) & t.mask
		for t.index[h] >= 0 {
			h = (h + 1) & t.mask
		}
		t.index[h] = int32(i)
	}
	return t
}

func hashKey(k []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range k {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// find returns the index of the field named exactly key, or -1.
func (t *fieldTable) find(key []byte) int {
	h := hashKey(key) & t.mask
	for {
		i := t.index[h]
		if i < 0 {
			return -1
		}
		if t.names[i] == string(key) {
			return int(i)
		}
		h = (h + 1) & t.mask
	}
}

// lookup returns the column for key, or -1 for an unknown key. hint is the
// column expected next (records usually list fields in schema order), tried
// before the table. fold adds a case-insensitive match when no exact one
// exists.
func (lv *level) lookup(key []byte, hint int, fold bool) int {
	if hint < len(lv.cols) && lv.cols[hint].name == string(key) {
		return hint
	}
	if i := lv.table.find(key); i >= 0 || !fold {
		return i
	}
	for i := range lv.cols {
		if bytes.EqualFold(lv.cols[i].nameBytes, key) {
			return i
		}
	}
	return -1
}

// expectedKey is the quoted form of column hint's name (see
// column.quotedKey), or "" when hint is past the last column or its name
// needs a scan.
func (lv *level) expectedKey(hint int) string {
	if hint < len(lv.cols) {
		return lv.cols[hint].quotedKey
	}
	return ""
}
