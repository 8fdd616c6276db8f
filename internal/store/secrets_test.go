package store_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/store"
)

// TestSecrets checks that a file's masked secrets are written with it,
// replaced when it is written again, and removed with it.
func TestSecrets(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openDB(t)
	withSecrets := func(path string, ss ...store.Secret) store.Update {
		u := file(path, "go", chunk("F", 0, "f"))
		u.Secrets = ss
		return u
	}
	tok := store.Secret{Rule: "github-token", Line: 3, StartByte: 40, EndByte: 80}
	pw := store.Secret{Rule: "password", Line: 7, StartByte: 120, EndByte: 138}
	apply(t, db, withSecrets("b.go", tok, pw), withSecrets("a.go", pw), withSecrets("c.go"))

	got, err := db.Secrets(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := store.SecretCounts{Total: 3, Files: 2, List: []store.SecretFile{{Path: "a.go", Count: 1, Rules: []string{"password"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Secrets(1) (-want +got):\n%s", diff)
	}
	spans, err := db.FileSecrets(ctx, "b.go")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Secret{tok, pw}, spans); diff != "" {
		t.Errorf("FileSecrets(b.go) (-want +got):\n%s", diff)
	}

	// Rewritten without secrets, and deleted.
	apply(t, db, withSecrets("b.go"), deletion("a.go"))
	got, err = db.Secrets(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(store.SecretCounts{}, got); diff != "" {
		t.Errorf("Secrets after rewriting and deleting (-want +got):\n%s", diff)
	}
}
