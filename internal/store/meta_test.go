package store_test

import (
	"testing"

	"github.com/ctx-dev/ctx/internal/store"
)

func TestMeta(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openDB(t)
	if v, err := db.Meta(ctx, store.MetaIdentity); v != "" || err != nil {
		t.Errorf("Meta(unset) = %q, %v; want \"\", nil", v, err)
	}
	if err := db.SetMeta(ctx, nil); err != nil {
		t.Errorf("SetMeta(nil): %v", err)
	}
	steps := []map[string]string{
		{store.MetaRoot: "/src/proj", store.MetaIdentity: "abc", store.MetaSkips: `{"binary":2}`},
		{store.MetaIdentity: "def", store.MetaGeneration: "2"},
	}
	want := map[string]string{}
	for _, kv := range steps {
		if err := db.SetMeta(ctx, kv); err != nil {
			t.Fatal(err)
		}
		for k, v := range kv {
			want[k] = v
		}
		for k, v := range want {
			if got, err := db.Meta(ctx, k); got != v || err != nil {
				t.Errorf("Meta(%s) = %q, %v; want %q", k, got, err, v)
			}
		}
	}
}
