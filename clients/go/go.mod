module github.com/trainprint/trainprint/clients/go

go 1.19
