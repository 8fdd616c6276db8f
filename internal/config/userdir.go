package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// UserDir returns the directory of ctx's user files (workspaces.toml):
// os.UserConfigDir()/ctx, i.e. $XDG_CONFIG_HOME/ctx, else ~/.config/ctx on
// Linux and ~/Library/Application Support/ctx on macOS. It is not created.
// Errors: no home directory and no XDG_CONFIG_HOME.
func UserDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("user config directory: %w", err)
	}
	return filepath.Join(d, "ctx"), nil
}
