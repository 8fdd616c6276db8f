package lazyre

import "testing"

func TestNewCompilesOnceOnFirstCall(t *testing.T) {
	re := New(`^a+b$`)
	first := re()
	if !first.MatchString("aab") || first.MatchString("ba") {
		t.Fatalf("pattern %q matched wrongly", first)
	}
	if re() != first {
		t.Error("a second call compiled the pattern again")
	}
}

func TestNewPanicsOnBadPatternAtFirstUse(t *testing.T) {
	re := New(`(`) // must not panic here
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic on first use")
		}
	}()
	re()
}
