package main

import (
	"slices"
	"strings"
	"testing"
)

// TestLinkedComponents runs the generator over ctx's real build for two
// targets: every linked module must have a licence file with an accepted
// licence, and every linked grammar an upstream licence here. A new
// dependency that breaks either fails this test.
func TestLinkedComponents(t *testing.T) {
	t.Parallel()
	for _, target := range [][2]string{{"linux", "amd64"}, {"darwin", "arm64"}} {
		t.Run(target[0]+"/"+target[1], func(t *testing.T) {
			t.Parallel()
			comps, err := collect(options{Pkg: "../../cmd/ctx", GOOS: target[0], GOARCH: target[1], Upstream: "upstream"})
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]component{}
			for _, c := range comps {
				byName[c.Name] = c
			}
			for name, licence := range map[string]string{
				"Go standard library and runtime":        "BSD-3-Clause",
				"github.com/smacker/go-tree-sitter":      "MIT",
				"tree-sitter runtime (C)":                "MIT",
				"tree-sitter grammar go (C)":             "",
				"tree-sitter grammar golang (C)":         "MIT",
				"tree-sitter grammar elixir (C)":         "Apache-2.0",
				"tree-sitter grammar lua (C)":            "MIT",
				"github.com/hashicorp/golang-lru/v2":     "MPL-2.0",
				"github.com/modelcontextprotocol/go-sdk": "Apache-2.0 AND MIT",
				"modernc.org/sqlite":                     "BSD-3-Clause",
			} {
				c, ok := byName[name]
				if licence == "" {
					if ok {
						t.Errorf("unexpected component %q", name)
					}
					continue
				}
				if !ok {
					t.Errorf("no component %q", name)
					continue
				}
				if c.Licence != licence {
					t.Errorf("%s: licence %q, want %q", name, c.Licence, licence)
				}
			}
			// Apache-2.0 section 4(d): the elixir grammar's NOTICE travels.
			if !slices.ContainsFunc(byName["tree-sitter grammar elixir (C)"].Files, func(f noticeFile) bool { return f.Name == "NOTICE" }) {
				t.Error("the elixir grammar's NOTICE is not reproduced")
			}
			var b strings.Builder
			if err := write(&b, options{GOOS: target[0], GOARCH: target[1]}, comps); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "Copyright (c) 2018-2024 Max Brunsfeld") {
				t.Error("the tree-sitter runtime's copyright notice is missing")
			}
		})
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string
	}{
		{"mit", "MIT License\n\nPermission is hereby granted, free of charge, to any person", []string{"MIT"}},
		{"bsd3", "Redistribution and use in source and binary forms ... Neither the name of Google", []string{"BSD-3-Clause"}},
		{"bsd2", "Redistribution and use in source and binary forms, with or without modification", []string{"BSD-2-Clause"}},
		{"isc", "Permission to use, copy, modify, and/or distribute this software", []string{"ISC"}},
		{"apache", "Apache License\n Version 2.0, January 2004", []string{"Apache-2.0"}},
		{"mpl names the GNU licences as secondary", "Mozilla Public License, version 2.0 ... means either the GNU General Public License", []string{"MPL-2.0"}},
		{"gpl", "GNU GENERAL PUBLIC LICENSE Version 2", []string{"GPL-family"}},
		{"lgpl", "GNU Lesser General Public License", []string{"GPL-family"}},
		{"spdx tag", "SPDX-License-Identifier: MIT\n\nno licence file upstream", []string{"MIT"}},
		{"relicensing", "undergoing a licensing transition from the MIT License to the Apache License, Version 2.0", []string{"Apache-2.0", "MIT"}},
		{"unknown", "All rights reserved.", nil},
	}
	for _, tt := range tests {
		if got := classify(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%s: classify = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestLicenceOfRejects(t *testing.T) {
	t.Parallel()
	files := []noticeFile{{Name: "COPYING", Text: "GNU GENERAL PUBLIC LICENSE"}, {Name: "NOTICE", Text: "Apache License Version 2.0"}}
	if got := licenceOf(files); got != "GPL-family" {
		t.Errorf("licenceOf = %q, want GPL-family (NOTICE files are not classified)", got)
	}
	if got := licenceOf([]noticeFile{{Name: "AUTHORS", Text: "someone"}}); got != "unknown" {
		t.Errorf("licenceOf = %q, want unknown", got)
	}
}
