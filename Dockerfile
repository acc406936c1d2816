# syntax=docker/dockerfile:1

# registryd in a small image: a static binary (CGO_ENABLED=0: the SQLite
# driver is pure Go) on distroless/static, which carries CA certificates and
# tzdata and no shell, running as an unprivileged user.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/registryd ./cmd/registryd \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/registryd /usr/local/bin/registryd
# The embedded SQLite database lives here when no REGISTRYD_DATABASE_URL is set.
COPY --from=build --chown=65532:65532 /out/data /data
ENV REGISTRYD_ADDR=0.0.0.0:8080 \
    REGISTRYD_DATA_DIR=/data
USER 65532:65532
EXPOSE 8080
VOLUME ["/data"]
# No shell in the image: the binary checks itself (GET /readyz on REGISTRYD_ADDR).
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["/usr/local/bin/registryd", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/registryd"]
CMD ["serve"]
