package simulator

// SetFailSave sets the seam through which the tests fail the saves of a
// state file: f is called before each save, and its error fails it.
func SetFailSave(cfg *Config, f func() error) { cfg.failSave = f }
