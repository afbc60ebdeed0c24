# Fracti API. Quick start: `make run`, then `make test`.

.PHONY: run test generate build image bench fuzz check stop-dynamodb stop-s3 help

run: ## Serve on DynamoDB Local and a local S3 server at :8080 with the Playground at / (prints a demo token)
	scripts/run.sh

test: ## go vet + every test with -race against a throwaway in-memory DynamoDB Local and local S3 server
	scripts/test.sh

generate: ## Regenerate GraphQL code from schema.graphqls and schema/ (cmd/gqlgen: gqlgen with the project's plugins)
	go tool gqlgen generate

build: ## Build the server binary into bin/
	go build -o bin/fracti-api .

IMAGE ?= fracti-api:latest
image: ## Build the container image (Dockerfile: static binary on distroless, nonroot) as $(IMAGE)
	docker build -t $(IMAGE) .

bench: ## Benchmarks: the Go benchmarks, then what each main screen costs beside raw SDK calls (cmd/bench)
	GOTEST_FLAGS=-count=1 scripts/test.sh -run '^$$' -bench . -benchmem -benchtime 50x
	go run ./cmd/bench

fuzz: ## Run each fuzz test (money, ledger, ton, media, the import readers, and the HTTP handler on DynamoDB Local) for 30s
	for p in ./money ./ledger ./ton ./media ./exchange/splitwise ./exchange/spliit ./exchange/fractijson; do \
	  for f in $$(go test $$p -list 'Fuzz.*' | grep ^Fuzz); do go test $$p -run '^$$' -fuzz "^$$f$$" -fuzztime 30s -fuzzminimizetime 5s || exit 1; done; \
	done
	PACKAGES=./httpapi GOTEST_FLAGS=-count=1 scripts/test.sh -run '^$$' -fuzz '^FuzzHandler$$' -fuzztime 30s

check: ## gofmt, go vet and generated code in step with the schema
	test -z "$$(gofmt -l $$(git ls-files '*.go'))"
	go vet ./...
	go tool gqlgen generate && git diff --exit-code -- graph

stop-dynamodb: ## Stop the DynamoDB Local that `make run` started
	scripts/dynamodb-local.sh stop .local/dynamodb-data/dynamodb-local.pid

stop-s3: ## Stop the local S3 server that `make run` started
	scripts/s3-local.sh stop .local/s3-local.pid

help: ## This list, then the server's commands (go run . help)
	@grep -E '^[a-z0-9-]+:.*##' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'
	@echo
	@echo "The server's commands (go run . <command>, or bin/fracti-api <command> after make build):"
	@go run . help
