# The Fracti API server as a small static image: `make image`, then
#   docker run -p 8080:8080 -e AWS_REGION=… -e DYNAMODB_TABLE=FractiTable-prod … fracti-api
# (README: Deploy). Base images are pinned by tag; pin them by digest as well
# where your registry policy asks for it.

FROM golang:1.26.8-bookworm AS build
WORKDIR /src
# Modules first: they stay cached while only the code changes.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static (no cgo, so no libc to match), without local paths or symbols.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/fracti-api .

# CA certificates (for AWS endpoints), tzdata and a nonroot user; no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/fracti-api /fracti-api
USER nonroot:nonroot
EXPOSE 8080
ENTRYPOINT ["/fracti-api"]
CMD ["serve"]
