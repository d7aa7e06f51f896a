# Exports (issue 15): pprof (protobuf-c, zlib) and OpenMetrics text, served
# with libmicrohttpd. The pprof schema is user/report/profile.proto, turned
# into C by protoc-c at build time (build/gen/); the tests read the exports
# with their real consumers: go tool pprof, promtool and a Prometheus server.

# OpenSSL's libcrypto: the HMAC-SHA256 of the metrics' opaque lock ids.
DEB_DEPS += libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev libssl-dev golang-go \
	prometheus curl

LIBS += -lprotobuf-c -lmicrohttpd -lcrypto

PPROF_GEN_C := $(OUTPUT)/profile.pb-c.c
PPROF_GEN_H := $(OUTPUT)/profile.pb-c.h
PPROF_GEN_O := $(OUTPUT)/obj/gen/profile.pb-c.o

$(PPROF_GEN_C) $(PPROF_GEN_H) &: user/report/profile.proto | check-deps
	$(call msg,PROTOC,$(PPROF_GEN_C))
	$(Q)mkdir -p $(OUTPUT)
	$(Q)protoc-c --c_out=$(OUTPUT) --proto_path=user/report profile.proto

# Generated code: our warnings are not its author's, so no -Werror here.
$(PPROF_GEN_O): $(PPROF_GEN_C) $(PPROF_GEN_H)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -I$(OUTPUT) -c $< -o $@

# The writer includes the generated header; the binaries link its object.
$(OUTPUT)/obj/user/report/pprof.o: $(PPROF_GEN_H)
$(OUTPUT)/spinscope: $(PPROF_GEN_O)
$(UNIT_BINS) $(INTEG_BINS): $(PPROF_GEN_O)
LIB_OBJS += $(PPROF_GEN_O)
