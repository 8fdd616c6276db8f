package static

import "fmt"

// termTable maps terms to ids 0…n-1 with an open-addressing hash table
// laid out in three flat arrays, so a model file can hold it as it is
// and a process can use it in place, without building a Go map (which
// costs milliseconds for a vocabulary of tens of thousands of terms, a
// visible share of a one-query CLI run).
//
// Term i is blob[offs[i]:offs[i+1]]. slots has a power-of-two length of
// at least twice n (load ≤ 0.5); slot h holds id+1 of a term whose
// 64-bit FNV-1a hash, masked to the table, probes linearly to h, or 0
// when empty.
type termTable struct {
	slots []uint32
	offs  []uint32 // n+1 byte offsets into blob
	blob  string
}

// newTermTable builds the table of terms (terms[i] has id i). Terms must
// be distinct and non-empty.
func newTermTable(terms []string) (termTable, error) {
	size := 2
	for size < 2*len(terms) {
		size *= 2
	}
	t := termTable{slots: make([]uint32, size), offs: make([]uint32, len(terms)+1)}
	total := 0
	for _, s := range terms {
		total += len(s)
	}
	if total >= 1<<32 {
		return termTable{}, fmt.Errorf("vocabulary is %d bytes, want under 4 GiB", total)
	}
	blob := make([]byte, 0, total)
	for i, s := range terms {
		if s == "" {
			return termTable{}, fmt.Errorf("vocabulary term %d is empty", i)
		}
		blob = append(blob, s...)
		t.offs[i+1] = uint32(len(blob))
	}
	t.blob = string(blob)
	mask := uint64(size - 1)
	for i, s := range terms {
		h := fnv1a64(s) & mask
		for t.slots[h] != 0 {
			if j := t.slots[h] - 1; t.term(int(j)) == s {
				return termTable{}, fmt.Errorf("vocabulary terms %d and %d are both %q", j, i, s)
			}
			h = (h + 1) & mask
		}
		t.slots[h] = uint32(i) + 1
	}
	return t, nil
}

// check reports whether the arrays are consistent enough for lookups to
// stay in bounds and end: offsets ascending within blob, a power-of-two
// table at most half full, ids in range. It does not check that every
// term is findable or that no id repeats.
func (t *termTable) check() error {
	n := len(t.offs) - 1
	if n < 0 {
		return fmt.Errorf("term table has no offsets")
	}
	if len(t.slots) < 2*max(n, 1) || len(t.slots)&(len(t.slots)-1) != 0 {
		return fmt.Errorf("term table has %d slots for %d terms, want a power of two at least twice the count", len(t.slots), n)
	}
	if t.offs[0] != 0 || int(t.offs[n]) != len(t.blob) {
		return fmt.Errorf("term offsets span %d to %d of a %d-byte blob", t.offs[0], t.offs[n], len(t.blob))
	}
	for i := range n {
		if t.offs[i+1] <= t.offs[i] {
			return fmt.Errorf("term %d is empty or out of order", i)
		}
	}
	// n filled slots: then at least half the slots are empty and every
	// probe sequence ends.
	used := 0
	for _, v := range t.slots {
		if int(v) > n {
			return fmt.Errorf("term table slot holds id %d of %d terms", int(v)-1, n)
		}
		if v != 0 {
			used++
		}
	}
	if used != n {
		return fmt.Errorf("term table fills %d slots for %d terms", used, n)
	}
	return nil
}

// len returns the number of terms.
func (t *termTable) len() int { return len(t.offs) - 1 }

// term returns term i (0 ≤ i < len).
func (t *termTable) term(i int) string { return t.blob[t.offs[i]:t.offs[i+1]] }

// lookup returns the id of s.
func (t *termTable) lookup(s string) (int32, bool) {
	mask := uint64(len(t.slots) - 1)
	for h := fnv1a64(s) & mask; ; h = (h + 1) & mask {
		v := t.slots[h]
		if v == 0 {
			return 0, false
		}
		if t.term(int(v-1)) == s {
			return int32(v - 1), true
		}
	}
}

// fnv1a64 is 64-bit FNV-1a of s.
func fnv1a64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
