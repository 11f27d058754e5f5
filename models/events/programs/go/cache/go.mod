module example.com/gocache

go 1.19
