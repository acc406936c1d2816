package badge

//go:generate go run ./internal/widthgen -o widths_gen.go
