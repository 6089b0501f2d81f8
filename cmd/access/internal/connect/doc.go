// Package connect is the machinery of reaching a console that the
// command line's commands share: the config file of profiles (its types,
// reading and writing in YAML or TOML, the names of its profiles), the
// connection of a run (Resolve: a URL and a token from the flags and the
// environment, or else a whole profile, never a mix; its scheme, pin and
// CA; the SDK options it gives a client) and the console's certificate
// (read without trusting it, checked against a CA file, named for a
// person, its fingerprint normalised, a TLS failure that pinning would
// cure recognised).
//
// It may import the standard library, the access module's public
// packages, internal/atomicfile, internal/clierr, TOML and YAML; no
// package of the command line (cmd/access, cmdutil, output or a command
// package), so that every room of it may use it (TestLayering in
// cmd/access keeps that).
package connect
