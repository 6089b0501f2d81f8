package main

import "github.com/access-dev/access/cmd/access/internal/cmdutil"

// factsHelp is the last paragraph of the help of a command that calls the
// API: its SDK methods, permission and minimum Access version
// (cmdutil.FactsHelp).
var factsHelp = cmdutil.FactsHelp
