package main

import (
	"bufio"
	"fmt"
	"strings"
)

// confirmWrite asks the question on a terminal and goes on only on "y" or
// "yes"; without a terminal to ask on, --yes must have been given. It is
// for the writes whose effect reaches every door (an emergency mode).
func (a *app) confirmWrite(cmdPath, question string, yes bool) error {
	if yes {
		return nil
	}
	if !a.isTerminal(a.stdin) {
		return usageErrorf("%s: %s; confirm with --yes (there is no terminal to ask on)", cmdPath, question)
	}
	fmt.Fprintf(a.stderr, "%s. Continue? [y/N] ", upperFirst(question))
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		answer <- strings.ToLower(strings.TrimSpace(line))
	}()
	select {
	case <-a.ctx.Done():
		fmt.Fprintln(a.stderr)
		return a.ctx.Err()
	case s := <-answer:
		if s == "y" || s == "yes" {
			return nil
		}
	}
	return &exitError{code: 1, err: fmt.Errorf("%s: not confirmed: nothing was changed", cmdPath)}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
