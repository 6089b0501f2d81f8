package main

import "github.com/access-dev/access/accesstest"

// pinHelp is the help of users assign-pin and visitors assign-pin: how to
// give a PIN without putting it in the process list.
const pinHelp = `A PIN given as an argument shows in ps and the shell history: prefer
--generate, which asks the console for an unused PIN (pin-codes generate),
assigns it and prints it once, or --data - to read it from stdin
({"pin_code":"…"} or the bare JSON string).`

// pinExample is the example of the assign-pin command of kind ("users"
// or "visitors") on the record id.
func pinExample(kind, id string) string {
	return "  access --fake " + kind + " assign-pin " + id + " --generate\n" +
		"  printf '{\"pin_code\":\"%s\"}' \"$PIN\" | access " + kind + " assign-pin " + id + " --data -"
}

// The records of the assign-pin examples.
const (
	demoUserID    = accesstest.DemoUserID
	demoVisitorID = accesstest.DemoVisitorID
)

// pinFlag is --generate of the assign-pin commands.
var pinFlag = flagSpec{name: "generate", kind: fBool, usage: "generate an unused PIN (pin-codes generate), assign it and print it once"}

// generatedPIN is the result of an assign-pin with --generate: the PIN,
// printed once.
type generatedPIN struct {
	ID      string `json:"id"`
	PINCode string `json:"pin_code"`
}

// assignPIN runs an assign-pin command: the PIN comes from --data, the
// argument, or the console with --generate; assign sends it. The record
// is x.arg(0) and what names it ("user").
func assignPIN(x *inv, what string, assign func(pin string) error) (any, error) {
	gen := x.b("generate")
	switch {
	case gen && x.arg(1) != "":
		return nil, usageErrorf("--generate makes the PIN: leave out PIN")
	case !gen && x.body == nil && x.arg(1) == "":
		return nil, usageErrorf("no PIN: give --generate, or --data - to read it from stdin")
	}
	if !gen {
		pin, _ := fromData(x, func() (string, error) { return x.arg(1), nil })
		if err := assign(pin); err != nil {
			return nil, err
		}
		return done{"assigned the PIN to " + what + " " + x.arg(0)}, nil
	}
	pin, _, err := x.c.PINCodes.Generate(x.a.ctx)
	if err != nil {
		return nil, err
	}
	if err := assign(pin); err != nil {
		return nil, err
	}
	return generatedPIN{ID: x.arg(0), PINCode: pin}, nil
}
