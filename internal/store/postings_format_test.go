package store

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEntryRoundTrip checks that an entry decodes to what was encoded, in
// the one-byte form and the long one, and which form each takes.
func TestEntryRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		tf    [NumColumns]uint32
		bytes int // after the id delta
	}{
		{"name once", [NumColumns]uint32{ColName: 1}, 1},
		{"body 60 times", [NumColumns]uint32{ColBody: 60}, 1},
		{"path 17 times", [NumColumns]uint32{ColPath: 17}, 1},
		{"body 61 times", [NumColumns]uint32{ColBody: 61}, 2},
		{"doc 300 times", [NumColumns]uint32{ColDoc: 300}, 3},
		{"name and body", [NumColumns]uint32{ColName: 1, ColBody: 2}, 3},
		{"every column", [NumColumns]uint32{5, 1, 200, 70000}, 1 + 1 + 1 + 2 + 3},
		{"most a uint32 holds", [NumColumns]uint32{ColBody: 1<<32 - 1}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := appendEntry(nil, 1000, &tc.tf)
			data = appendEntry(data, 3, &tc.tf)
			var got []posting
			if err := decodePostings(data, func(p *posting) { got = append(got, *p) }); err != nil {
				t.Fatal(err)
			}
			var mask uint8
			for c, n := range tc.tf {
				if n > 0 {
					mask |= 1 << c
				}
			}
			want := []posting{{id: 1000, mask: mask, tf: tc.tf}, {id: 1003, mask: mask, tf: tc.tf}}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(posting{})); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
			// Deltas 1000 and 3 take 2 bytes and 1.
			if len(data) != 3+2*tc.bytes {
				t.Errorf("entry is %d bytes after its id delta, want %d", (len(data)-3)/2, tc.bytes)
			}
		})
	}
}

// TestPostingsRoundTrip checks the stored index against the chunks written:
// every live chunk's entry for every term it holds, with its term
// frequency in each column and its token count, and nothing else, over
// several segments, replaced and deleted files (dead entries), long rows
// (postings_big), frequencies past the one-byte form, counts past 16
// bits, and after partial and full merges.
func TestPostingsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(3, 5))
	// Each file's chunks, by path: what the index must hold.
	files := map[string][]Chunk{}
	newFile := func(path string, chunks int) Update {
		u := Update{File: File{Path: path, Language: "go", Hash: make([]byte, 32)}}
		for c := range chunks {
			ch := Chunk{Name: fmt.Sprintf("%s#%d", path, c), StartByte: c}
			for col := range NumColumns {
				var terms []string
				for range rng.IntN(10) {
					terms = append(terms, fmt.Sprintf("t%d", rng.IntN(60)))
				}
				// "common" is in every chunk (a long row), "rep" past the
				// one-byte frequencies in some.
				if col == ColBody {
					terms = append(terms, "common")
					switch rng.IntN(8) {
					case 0:
						terms = append(terms, strings.Fields(strings.Repeat("rep ", 61+rng.IntN(200)))...)
					case 1:
						terms = append(terms, strings.Fields(strings.Repeat("huge ", 70000))...)
					}
				}
				rng.Shuffle(len(terms), func(i, j int) { terms[i], terms[j] = terms[j], terms[i] })
				ch.Terms[col] = strings.Join(terms, " ")
			}
			u.Chunks = append(u.Chunks, ch)
		}
		files[path] = u.Chunks
		return u
	}
	check := func(stage string) {
		t.Helper()
		want := map[string][]posting{}
		for _, path := range slices.Sorted(maps.Keys(files)) {
			rows, err := db.FileChunks(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]int64{}
			for _, r := range rows {
				byName[r.Name] = r.ID
			}
			for _, ch := range files[path] {
				id, ok := byName[ch.Name]
				if !ok {
					t.Fatalf("%s: chunk %s not stored", stage, ch.Name)
				}
				tf := map[string]*posting{}
				ntok := 0
				for col, s := range ch.Terms {
					for _, term := range strings.Fields(s) {
						ntok++
						p := tf[term]
						if p == nil {
							p = &posting{id: id}
							tf[term] = p
						}
						p.tf[col]++
						p.mask |= 1 << col
					}
				}
				for term, p := range tf {
					p.dl = uint32(ntok)
					want[term] = append(want[term], *p)
				}
			}
		}
		for _, es := range want {
			slices.SortFunc(es, func(a, b posting) int { return cmpInt(a.id, b.id) })
		}
		if diff := cmp.Diff(want, liveEntries(t, db), cmp.AllowUnexported(posting{})); diff != "" {
			t.Errorf("%s: stored entries (-written +stored):\n%s", stage, diff)
		}
	}

	// One large segment, then small ones.
	var batch []Update
	for f := range 60 {
		batch = append(batch, newFile(fmt.Sprintf("big/f%d.go", f), 1+rng.IntN(8)))
	}
	if err := db.Apply(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for b := range 9 {
		if err := db.Apply(ctx, []Update{newFile(fmt.Sprintf("small/f%d.go", b), 1)}); err != nil {
			t.Fatal(err)
		}
	}
	check("10 segments")
	var big int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM postings_big`).Scan(&big); err != nil || big == 0 {
		t.Errorf("%d rows in postings_big (%v), want the long rows there", big, err)
	}
	if st, err := db.CompactPostings(ctx); err != nil || st.Segments != 9 || st.Dropped != 0 {
		t.Fatalf("CompactPostings = %+v, %v; want the 9 small segments merged", st, err)
	}
	check("partial merge")

	// Replace and delete files: their old entries are dead.
	batch = nil
	for f := range 12 {
		batch = append(batch, newFile(fmt.Sprintf("big/f%d.go", f), 1+rng.IntN(5)))
	}
	batch = append(batch, Update{File: File{Path: "small/f3.go"}, Delete: true})
	delete(files, "small/f3.go")
	if err := db.Apply(ctx, batch); err != nil {
		t.Fatal(err)
	}
	check("dead entries")
	st, err := db.CompactPostings(ctx)
	if err != nil || st.Dropped == 0 {
		t.Fatalf("CompactPostings = %+v, %v; want a full merge dropping dead entries", st, err)
	}
	check("full merge")
	var pages, liveOnly int
	if err := db.r.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE page IN (SELECT id >> ? FROM chunks)) FROM doclens`, docPageBits).Scan(&pages, &liveOnly); err != nil || pages != liveOnly {
		t.Errorf("%d doc-length pages, %d of live chunks (%v)", pages, liveOnly, err)
	}
}
