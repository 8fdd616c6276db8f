package search

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// TuneEnv names the environment variable that overrides ranking constants
// for a measurement run (sweeps and leave-one-repository-out
// cross-validation, scripts/rank-cv): "Coherence=0.12,TestPenalty=0.4".
const TuneEnv = "CTX_RANK_TUNE"

// SetTuning overrides ranking constants of this process from spec, a
// comma-separated list of Name=value pairs naming fields of the tuning
// table ([TuningNames]). It is meant for measurement, not for users: the
// shipped constants are the measured ones. It returns an error naming
// the first unknown field or bad value and then changes nothing.
func SetTuning(spec string) error {
	t := tune
	v := reflect.ValueOf(&t).Elem()
	for _, kv := range strings.Split(spec, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%s: %q is not Name=value", TuneEnv, kv)
		}
		f := v.FieldByName(strings.TrimSpace(name))
		if !f.IsValid() || f.Kind() != reflect.Float64 {
			return fmt.Errorf("%s: no ranking constant %q (have %s)", TuneEnv, name, strings.Join(TuningNames(), ", "))
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return fmt.Errorf("%s: %s=%q is not a number", TuneEnv, name, val)
		}
		f.SetFloat(x)
	}
	tune = t
	return nil
}

// TuningNames returns the names of the ranking constants [SetTuning]
// accepts, in declaration order.
func TuningNames() []string {
	tt := reflect.TypeOf(tune)
	var names []string
	for i := 0; i < tt.NumField(); i++ {
		if tt.Field(i).Type.Kind() == reflect.Float64 {
			names = append(names, tt.Field(i).Name)
		}
	}
	return names
}

// Tuning returns the ranking constants of this process by name: the
// values this build ships, or those [SetTuning] set. The names are those
// of [TuningNames].
func Tuning() map[string]float64 {
	v := reflect.ValueOf(tune)
	out := map[string]float64{}
	for _, n := range TuningNames() {
		out[n] = v.FieldByName(n).Float()
	}
	return out
}
