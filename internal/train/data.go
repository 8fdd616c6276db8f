package train

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// Pair is one mined (natural language → code) training pair, as
// internal/mine writes it; fields this package does not use are ignored.
type Pair struct {
	Query  string `json:"query"`
	Code   string `json:"code"`
	Path   string `json:"path"` // the code's file, relative to its source
	Lang   string `json:"lang"`
	Kind   string `json:"kind"`   // doc, comment or name
	Source string `json:"source"` // the package or module it came from
	Split  string `json:"split"`  // "train" or "heldout"
}

// LoadPairs reads a JSON-lines pairs file and splits it into training
// and held-out pairs. A pair with an empty query or code is skipped.
func LoadPairs(path string) (trainSet, heldout []Pair, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var p Pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if p.Query == "" || p.Code == "" {
			continue
		}
		switch p.Split {
		case "heldout":
			heldout = append(heldout, p)
		default:
			trainSet = append(trainSet, p)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	return trainSet, heldout, nil
}
