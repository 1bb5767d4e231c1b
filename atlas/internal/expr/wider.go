package expr

import "github.com/apache/arrow-go/v18/arrow"

// numericRank orders Spark's numeric types by width, for WiderType.
var numericRank = map[arrow.Type]int{
	arrow.INT8: 1, arrow.INT16: 2, arrow.INT32: 3, arrow.INT64: 4, arrow.FLOAT32: 5, arrow.FLOAT64: 6,
}

// WiderType is Spark's findWiderTypeWithoutStringPromotion for two types:
// the type both convert to without losing range (NULL to anything,
// integers to the wider integer, any number with a float or double to
// it), and ok=false when they have none (a string and a number).
func WiderType(a, b arrow.DataType) (arrow.DataType, bool) {
	switch {
	case arrow.TypeEqual(a, b):
		return a, true
	case a.ID() == arrow.NULL:
		return b, true
	case b.ID() == arrow.NULL:
		return a, true
	}
	if w, ok := decimalWider(a, b); ok {
		return w, true
	}
	ra, aNum := numericRank[a.ID()]
	rb, bNum := numericRank[b.ID()]
	if aNum && bNum {
		if ra >= rb {
			return a, true
		}
		return b, true
	}
	if la, ok := a.(*arrow.ListType); ok {
		if lb, ok := b.(*arrow.ListType); ok {
			if el, ok := WiderType(la.Elem(), lb.Elem()); ok {
				return arrow.ListOf(el), true
			}
		}
	}
	if a.ID() == arrow.TIMESTAMP && b.ID() == arrow.TIMESTAMP {
		return a, true
	}
	return nil, false
}
