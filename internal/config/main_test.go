package config_test

import (
	"fmt"
	"os"
	"testing"
)

// TestMain points XDG_CONFIG_HOME at an empty directory, so that no test
// reads the developer's own user file.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctx-config-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
