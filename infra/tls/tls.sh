# The secure stack (`infra/svc start --tls`): its certificates, and the start, stop and status of its three
# servers (the TLS Kafka, MariaDB and Redis of infra/kafka, infra/mariadb and infra/redis).
# The certificates are made with openssl into TLS_DIR (default .infra/tls): a CA, a server certificate for
# localhost and 127.0.0.1, a client certificate signed by the same CA, and Kafka's PKCS12 keystore and
# truststore (checked and made with the keytool of the JDK that runs Kafka). Sourced by infra/svc and ./run.

TLS_DIR=${TLS_DIR:-$STATE_DIR/tls}
# What a current set holds; one missing file remakes them all, so a set never mixes two CAs.
TLS_FILES=(ca.pem ca-key.pem server.pem server-key.pem client.pem client-key.pem kafka.keystore.p12 kafka.truststore.p12)

# The keytool beside the java that runs Kafka: another JDK's could write a store that one cannot read.
tls_keytool() {
  local java
  java=$(command -v java) || die "Java is not installed; Kafka's keystores need its keytool (apt-get install openjdk-17-jre-headless) and re-run"
  local keytool
  keytool="$(dirname "$(readlink -f "$java")")/keytool"
  [[ -x $keytool ]] || die "no keytool beside $(readlink -f "$java"); install the JDK's full runtime (apt-get install openjdk-17-jre-headless) and re-run"
  echo "$keytool"
}

# The settings the stores were made with: a changed TLS_STORE_PASSWORD or TLS_CERT_DAYS remakes the set.
tls_made_with() { printf 'days=%s store=%s\n' "$TLS_CERT_DAYS" "$(printf '%s' "$TLS_STORE_PASSWORD" | sha256sum | cut -c1-16)"; }

tls_certs_current() {
  local file
  for file in "${TLS_FILES[@]}"; do [[ -s $TLS_DIR/$file ]] || return 1; done
  [[ -f $TLS_DIR/.made-with && $(cat "$TLS_DIR/.made-with") == "$(tls_made_with)" ]] || return 1
  # One that expires within a day is remade now rather than in the middle of a test run.
  for file in ca.pem server.pem client.pem; do
    openssl x509 -checkend 86400 -noout -in "$TLS_DIR/$file" >/dev/null 2>&1 || return 1
  done
}

# Makes the set when a file is missing, a certificate expires within a day or the settings changed;
# TLS_CERTS_MADE=1 then, so that servers still serving the old certificate are restarted.
TLS_CERTS_MADE=0
tls_certs() {
  tls_certs_current && return 0
  command -v openssl >/dev/null || die "openssl is not installed; it makes the secure stack's certificates (apt-get install openssl) and re-run"
  [[ ${#TLS_STORE_PASSWORD} -ge 6 ]] || die "TLS_STORE_PASSWORD must have at least 6 characters (keytool's minimum); set a longer one"
  local keytool lock_fd
  keytool=$(tls_keytool)
  mkdir -p "$(dirname "$TLS_DIR")"
  # Two starts at once (two test runs) would both make a set, and one would replace the other's CA.
  exec {lock_fd}>"$TLS_DIR.lock"
  flock "$lock_fd"
  if tls_certs_current; then exec {lock_fd}>&-; return 0; fi
  log "making the secure stack's certificates in ${TLS_DIR#"$ROOT"/} (valid $TLS_CERT_DAYS days; TLS servers already running are restarted)"
  local work="$TLS_DIR.new" out
  rm -rf "$work"; mkdir -p "$work"; chmod 700 "$work"
  out="$work/openssl.log"
  local days=$TLS_CERT_DAYS pass="pass:$TLS_STORE_PASSWORD"
  # The CA; its key stays beside it so that more certificates can be signed by hand.
  openssl req -x509 -newkey rsa:2048 -noenc -keyout "$work/ca-key.pem" -out "$work/ca.pem" -days "$days" \
    -subj "/O=mojafast/CN=mojafast local test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" >>"$out" 2>&1 \
    || die "openssl could not make the CA (see ${out#"$ROOT"/})"
  # The server's: hostname verification passes for both names a client uses. clientAuth too, since the
  # Kafka broker connects to its own listeners with it.
  tls_sign server "/O=mojafast/CN=localhost" \
    "subjectAltName=DNS:localhost,IP:127.0.0.1"$'\n'"extendedKeyUsage=serverAuth,clientAuth"
  tls_sign client "/O=mojafast/CN=mojafast" "extendedKeyUsage=clientAuth"
  rm -f "$work"/*.csr "$work"/*.ext
  openssl pkcs12 -export -in "$work/server.pem" -inkey "$work/server-key.pem" -certfile "$work/ca.pem" \
    -name mojafast-server -out "$work/kafka.keystore.p12" -passout "$pass" >>"$out" 2>&1 \
    || die "openssl could not make Kafka's keystore (see ${out#"$ROOT"/})"
  "$keytool" -importcert -noprompt -alias mojafast-ca -file "$work/ca.pem" -storetype PKCS12 \
    -keystore "$work/kafka.truststore.p12" -storepass "$TLS_STORE_PASSWORD" >>"$out" 2>&1 \
    || die "keytool could not make Kafka's truststore (see ${out#"$ROOT"/})"
  # The JDK reads openssl's PKCS12 (a too-old one would not): asked here, not first by a failing broker.
  "$keytool" -list -storetype PKCS12 -keystore "$work/kafka.keystore.p12" -storepass "$TLS_STORE_PASSWORD" >>"$out" 2>&1 \
    || die "the JDK cannot read the keystore openssl made (see ${out#"$ROOT"/}); use Java 17.0.1 or newer"
  chmod 600 "$work"/*-key.pem "$work"/*.p12
  tls_made_with >"$work/.made-with"
  rm -rf "$TLS_DIR"
  mv "$work" "$TLS_DIR"
  exec {lock_fd}>&-
  TLS_CERTS_MADE=1
  SETUP_DID+=("tls certificates")
}

# A key and a certificate signed by the CA in $work. Usage: tls_sign NAME SUBJECT EXTENSIONS
tls_sign() {
  local name=$1 subject=$2 extensions=$3
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n%s\n' "$extensions" >"$work/$name.ext"
  openssl req -newkey rsa:2048 -noenc -keyout "$work/$name-key.pem" -out "$work/$name.csr" -subj "$subject" >>"$out" 2>&1 \
    && openssl x509 -req -in "$work/$name.csr" -CA "$work/ca.pem" -CAkey "$work/ca-key.pem" \
      -set_serial "0x$(openssl rand -hex 15)" -days "$days" -extfile "$work/$name.ext" -out "$work/$name.pem" >>"$out" 2>&1 \
    || die "openssl could not make the $name certificate (see ${out#"$ROOT"/})"
}

# The secure stack's servers, by infra/svc's names. Usage: tls_stack_start [kafka|mysql|redis]...
tls_stack_start() {
  local services=("$@") s
  (( ${#services[@]} )) || services=(kafka mysql redis)
  tls_certs
  if (( TLS_CERTS_MADE )); then
    # A server started before holds the old certificate, which the new CA does not sign: stopped here,
    # started again below (or by the next start that names it).
    for s in kafka mariadb redis; do
      if "${s}_tls_running_pid" >/dev/null; then "${s}_tls_stop"; fi
    done
  fi
  for s in "${services[@]}"; do
    case $s in
      kafka) kafka_tls_start ;;
      mysql) mariadb_tls_start; central_ledger_schema --tls ;;
      redis) redis_tls_start ;;
    esac
  done
}
