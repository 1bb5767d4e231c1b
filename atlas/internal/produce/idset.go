package produce

import "math/rand/v2"

// idSet is a set of key ids with O(1) add, remove and uniform random pick.
// Its order depends only on the sequence of operations, so picks are
// reproducible.
type idSet struct {
	ids []int32
	pos []int32 // pos[id] is 1 + the index of id in ids, 0 when absent
}

// len returns the number of members.
func (s *idSet) len() int { return len(s.ids) }

// has reports whether id is a member.
func (s *idSet) has(id int32) bool { return int(id) < len(s.pos) && s.pos[id] != 0 }

// add makes id a member.
func (s *idSet) add(id int32) {
	if s.has(id) {
		return
	}
	for int(id) >= len(s.pos) {
		s.pos = append(s.pos, 0)
	}
	s.ids = append(s.ids, id)
	s.pos[id] = int32(len(s.ids))
}

// remove drops id, moving the last member into its place.
func (s *idSet) remove(id int32) {
	if !s.has(id) {
		return
	}
	i := s.pos[id] - 1
	last := s.ids[len(s.ids)-1]
	s.ids[i] = last
	s.pos[last] = i + 1
	s.ids = s.ids[:len(s.ids)-1]
	s.pos[id] = 0
}

// random returns a uniformly drawn member; the set must not be empty.
func (s *idSet) random(r *rand.Rand) int32 { return s.ids[r.IntN(len(s.ids))] }
