package search

// TEMPORARY: experiment knob, removed before landing.

import (
	"os"
	"reflect"
	"strconv"
	"strings"
)

func init() {
	v := os.Getenv("CTX_TUNE")
	if v == "" {
		return
	}
	rv := reflect.ValueOf(&tune).Elem()
	for _, kv := range strings.Split(v, ",") {
		k, val, _ := strings.Cut(kv, "=")
		f, _ := strconv.ParseFloat(val, 64)
		rv.FieldByName(k).SetFloat(f)
	}
}
