package cli

import "testing"

func TestIndexSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		index, source int64
		want          string
	}{
		{"ratio", 137 << 20, 54 << 20, "137.0 MiB on disk, 2.54x the 54.0 MiB of indexed source"},
		{"no source", 96 << 10, 0, "96.0 KiB on disk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := indexSize(tt.index, tt.source); got != tt.want {
				t.Errorf("indexSize(%d, %d) = %q, want %q", tt.index, tt.source, got, tt.want)
			}
		})
	}
}
