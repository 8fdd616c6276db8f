package analyze

import "testing"

// TestSingular: plural spellings lose their ending, words that only end
// in s keep it, and a joined pair is also written with its last word
// singular, marked as a variant unless the query writes it as well.
func TestSingular(t *testing.T) {
	for w, want := range map[string]string{
		"options": "option", "entries": "entry", "matches": "match", "classes": "class", "boxes": "box",
		"plugins": "plugin", "class": "class", "status": "status", "axis": "axis", "is": "is", "bus": "bus", "io": "io",
	} {
		if got := singular(w); got != want {
			t.Errorf("singular(%q) = %q, want %q", w, got, want)
		}
	}
	terms := map[string]Term{}
	for _, tm := range Analyze("how are unknown options reported").Terms {
		terms[tm.Text] = tm
	}
	if tm, ok := terms["unknownoption"]; !ok || !tm.Variant || tm.Weight != joinedWeight {
		t.Errorf("unknown options: joined singular %+v (present %v), want a variant of weight %v", tm, ok, joinedWeight)
	}
	if tm := terms["unknownoptions"]; tm.Variant {
		t.Errorf("the joined pair as written is marked a variant: %+v", tm)
	}
	for _, tm := range Analyze("unknownOption: how are unknown options reported").Terms {
		if tm.Text == "unknownoption" && tm.Variant {
			t.Errorf("a term the query writes is marked a variant: %+v", tm)
		}
	}
}
