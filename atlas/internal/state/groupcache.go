package state

import "encoding/binary"

// groupCacheSlots is the size of a groupCache: far more slots than the
// groups a micro-batch of a windowed count usually touches (event types
// times open windows), so that they seldom evict each other.
const groupCacheSlots = 512

// groupCache remembers the group of recently seen keys in a direct-mapped
// table in front of the aggregator's map. Its hash reads a key's length
// and first and last 8 bytes rather than every byte, which is what made
// the map lookup the costliest step of a windowed count (about 24 ns of
// 36 per row); a hit is confirmed by comparing the whole key with the
// group's, so a collision only costs a map lookup.
type groupCache struct {
	slot [groupCacheSlots]int32 // group + 1; 0 for an empty slot
}

func cacheSlot(key []byte) uint64 {
	n := len(key)
	var h uint64
	if n >= 8 {
		h = binary.LittleEndian.Uint64(key) ^ binary.LittleEndian.Uint64(key[n-8:])*0x9e3779b97f4a7c15
	} else {
		for _, c := range key {
			h = h<<8 | uint64(c)
		}
	}
	h ^= uint64(n)
	h *= 0xff51afd7ed558ccd
	return (h ^ h>>29) % groupCacheSlots
}

// find returns the group whose key (in keys) is key, if the cache holds it.
func (c *groupCache) find(key []byte, keys []string) (int32, bool) {
	g := c.slot[cacheSlot(key)] - 1
	if g >= 0 && int(g) < len(keys) && keys[g] == string(key) {
		return g, true
	}
	return 0, false
}

// put remembers that key is group g.
func (c *groupCache) put(key []byte, g int32) { c.slot[cacheSlot(key)] = g + 1 }

// reset forgets every key, for when groups are renumbered. A stale slot
// would only miss (find compares the whole key with the group's), so this
// saves the comparisons, not the correctness.
func (c *groupCache) reset() { c.slot = [groupCacheSlots]int32{} }
