package main

import "github.com/access-dev/access/internal/simulator"

func init() {
	extraCommands = append(extraCommands, simulator.NewCommand)
	extraEnvCommands = append(extraEnvCommands, simulator.TriggerCommand) // access fake trigger
}
