package engine

// SetImportFault makes [Engine.ImportIndex] call f at its stages (PhaseExtract
// after the archive is extracted, PhaseInstall just before the index is
// replaced) and fail with its error, as a crash there would stop it. The
// returned func removes it. Tests that use it must not run in parallel
// with other imports.
func SetImportFault(f func(stage string) error) func() {
	importFault = f
	return func() { importFault = nil }
}
