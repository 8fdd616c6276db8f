// Package greet builds greetings.
package greet

// Greet returns the greeting for one name.
func Greet(name string) string {
	return "hello " + name
}

// Welcome greets every name of a list, in order.
func Welcome(names []string) []string {
	var out []string
	for _, n := range names {
		msg := "héllo, ☃ " + Greet(n)
		out = append(out, msg)
	}
	return out
}
