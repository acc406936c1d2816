package badge

// widths_gen.go is generated from DejaVu Sans (Debian fonts-dejavu-core);
// TestTableIsFresh in internal/widthgen fails when it is stale.
//go:generate go run ./internal/widthgen -o widths_gen.go
