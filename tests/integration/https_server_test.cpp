// HTTPS and TLS end to end: the real binary with temporary certificates made by
// `openssl req`, driven by curl, openssl s_client and a small TLS client.
#include <signal.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "echo_client.hpp"
#include "server_process.hpp"
#include "tls_test_client.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

// A self-signed certificate made with `openssl req` as scripts/run.sh makes
// the shipped one: an RSA 2048 key, or (quicker to make) a P-256 one.
struct Certificate {
  std::string cert;
  std::string key;
};

enum class KeyType { rsa, ec };

Certificate make_certificate(const TempDir& dir, const std::string& stem, const std::string& common_name,
                             const std::string& alt_names, KeyType type = KeyType::ec) {
  Certificate made{dir.path() + "/" + stem + ".crt", dir.path() + "/" + stem + ".key"};
  std::vector<std::string> args{"req",
                                "-x509",
                                "-nodes",
                                "-days",
                                "2",
                                "-subj",
                                "/CN=" + common_name,
                                "-addext",
                                "subjectAltName=" + alt_names,
                                "-keyout",
                                made.key,
                                "-out",
                                made.cert};
  const std::vector<std::string> key =
      type == KeyType::rsa ? std::vector<std::string>{"-newkey", "rsa:2048"}
                           : std::vector<std::string>{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"};
  args.insert(args.begin() + 1, key.begin(), key.end());
  const RunResult run = run_program("openssl", args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return made;
}

std::string random_bytes(std::size_t size, unsigned seed) {
  std::string bytes(size, '\0');
  std::mt19937 rng(seed);
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

// A number from the status handler's JSON, e.g. "tls_handshake_failures".
long counter(const std::string& status_json, const std::string& name) {
  const auto at = status_json.find("\"" + name + "\":");
  if (at == std::string::npos) return -1;
  return std::stol(status_json.substr(at + name.size() + 3));
}

class HttpsServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::signal(SIGPIPE, SIG_IGN);  // the TLS test client writes to sockets the server may have closed
    dir_ = std::make_unique<TempDir>();
    main_ = make_certificate(*dir_, "localhost", "localhost", "DNS:localhost,IP:127.0.0.1", KeyType::rsa);
    a_ = make_certificate(*dir_, "a", "a.test", "DNS:a.test");
    b_ = make_certificate(*dir_, "b", "wild.b.test", "DNS:*.b.test");
    big_file_ = random_bytes(3 * 1024 * 1024, 5);
    dir_->write("big.bin", big_file_);
    page_file_ = random_bytes(20 * 1024, 6);  // small enough for the file cache: a referenced body
    dir_->write("page.bin", page_file_);
    const std::string routes = R"([
        {"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"},
        {"method": ["POST", "PUT"], "path": "/echo", "handler": "echo"},
        {"method": "GET", "path": "/health", "handler": "health"},
        {"method": "GET", "path": "/status", "handler": "status"},
        {"method": "GET", "path": "/files/*", "handler": "static", "root": ")" +
                               dir_->path() + R"("}])";
    const std::string config = R"({"listeners": [
      {"name": "secure", "address": "127.0.0.1:0", "protocol": "http", "limits": {"max_body_bytes": 4194304},
       "http2": {"enabled": false},
       "tls": [{"cert": ")" + main_.cert +
                               R"(", "key": ")" + main_.key +
                               R"(", "handshake_timeout_ms": 300},
               {"server_names": ["a.test"], "cert": ")" +
                               a_.cert + R"(", "key": ")" + a_.key + R"("},
               {"server_names": ["*.b.test"], "cert": ")" +
                               b_.cert + R"(", "key": ")" + b_.key + R"("}],
       "routes": )" + routes + R"(},
      {"name": "modern", "address": "127.0.0.1:0", "protocol": "http",
       "tls": {"cert": ")" + main_.cert +
                               R"(", "key": ")" + main_.key +
                               R"(", "min_version": "1.3", "session_tickets": false},
       "routes": )" + routes + R"(},
      {"name": "stateful", "address": "127.0.0.1:0", "protocol": "http",
       "tls": {"cert": ")" + main_.cert +
                               R"(", "key": ")" + main_.key + R"(", "session_tickets": false},
       "routes": )" + routes + R"(},
      {"name": "echo", "address": "127.0.0.1:0", "protocol": "echo",
       "tls": {"cert": ")" + main_.cert +
                               R"(", "key": ")" + main_.key + R"("}}]})";
    server_ = std::make_unique<ServerProcess>(config);
    port_ = server_->port_of("secure");
    modern_port_ = server_->port_of("modern");
    stateful_port_ = server_->port_of("stateful");
    echo_port_ = server_->port_of("echo");
    base_ = "https://localhost:" + std::to_string(port_);
  }
  static void TearDownTestSuite() {
    server_.reset();
    dir_.reset();
  }
  void TearDown() override { ASSERT_TRUE(server_->running()) << "the server died: " << server_->err(); }

  static RunResult curl(std::vector<std::string> args) {
    args.insert(args.begin(), {"-sS", "--max-time", "20", "--cacert", main_.cert});
    return run_program("curl", args);
  }
  static std::string status() { return curl({base_ + "/status"}).out; }

  // openssl s_client: sends one request asking to close, prints the session.
  static RunResult s_client(int port, std::vector<std::string> args, const std::string& ca) {
    args.insert(args.begin(), {"s_client", "-connect", "127.0.0.1:" + std::to_string(port), "-CAfile", ca,
                               "-verify_return_error", "-ign_eof"});
    return run_program_with_input("openssl", args,
                                  "GET /plaintext HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  }

  static inline std::unique_ptr<TempDir> dir_;
  static inline std::unique_ptr<ServerProcess> server_;
  static inline Certificate main_, a_, b_;
  static inline std::string big_file_;
  static inline std::string page_file_;
  static inline int port_ = 0, modern_port_ = 0, stateful_port_ = 0, echo_port_ = 0;
  static inline std::string base_;
};

TEST_F(HttpsServerTest, StartUpLinesNameTheTlsListeners) {
  const std::string log = server_->err();
  EXPECT_NE(log.find("listener \"secure\" serving https on 127.0.0.1:"), std::string::npos) << log;
  EXPECT_NE(log.find("listener \"echo\" serving echo over TLS on 127.0.0.1:"), std::string::npos) << log;
}

TEST_F(HttpsServerTest, CurlReusesTheKeepAliveConnection) {
  const RunResult run = curl({"-v", base_ + "/plaintext", base_ + "/health"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Hello, World!ok");
  EXPECT_NE(run.err.find("Re-using existing connection"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("ALPN: server accepted http/1.1"), std::string::npos) << run.err;
}

TEST_F(HttpsServerTest, LargeBodiesTravelBothWays) {
  TempDir dir;
  const std::string upload = random_bytes(1536 * 1024, 11);
  const std::string file = dir.write("upload.bin", upload);
  const RunResult echoed = curl({"--data-binary", "@" + file, "-o", dir.path() + "/echoed", base_ + "/echo"});
  EXPECT_EQ(echoed.exit_code, 0) << echoed.err;
  EXPECT_TRUE(read_file(dir.path() + "/echoed") == upload);
  const RunResult download = curl({"-o", dir.path() + "/big", base_ + "/files/big.bin"});
  EXPECT_EQ(download.exit_code, 0) << download.err;
  EXPECT_TRUE(read_file(dir.path() + "/big") == big_file_);
}

TEST_F(HttpsServerTest, PipelinedCachedFilesArriveIntactAndInOrder) {
  // A referenced body is copied into the record stream (TLS encrypts anyway), in order with its head.
  TlsTestClient client(port_, main_.cert);
  ASSERT_TRUE(client.ok()) << client.error();
  std::string batch;
  const std::vector<std::pair<std::string, std::string>> asked = {
      {"", page_file_}, {"Range: bytes=100-5099\r\n", page_file_.substr(100, 5000)}, {"", page_file_}};
  for (const auto& [header, body] : asked) batch += "GET /files/page.bin HTTP/1.1\r\nHost: localhost\r\n" + header + "\r\n";
  batch += "GET /plaintext HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  ASSERT_TRUE(client.send(batch));
  std::string reply = client.receive_until("Hello, World!");
  for (const auto& [header, body] : asked) {
    const auto head_end = reply.find("\r\n\r\n");
    ASSERT_NE(head_end, std::string::npos) << reply.substr(0, 300);
    const std::string head = reply.substr(0, head_end);
    EXPECT_NE(head.find("Content-Length: " + std::to_string(body.size()) + "\r\n"), std::string::npos) << head;
    ASSERT_GE(reply.size(), head_end + 4 + body.size());
    EXPECT_TRUE(reply.compare(head_end + 4, body.size(), body) == 0) << "a body differs: " << head;
    reply.erase(0, head_end + 4 + body.size());
  }
  EXPECT_TRUE(reply.starts_with("HTTP/1.1 200 OK\r\n")) << reply.substr(0, 300);
  EXPECT_TRUE(reply.ends_with("\r\n\r\nHello, World!")) << reply.substr(0, 300);
}

TEST_F(HttpsServerTest, ChunkedUploadsAreEchoed) {
  TempDir dir;
  const std::string upload = random_bytes(300 * 1024, 12);
  const std::string file = dir.write("upload.bin", upload);
  const RunResult run = curl({"-v", "-H", "Transfer-Encoding: chunked", "--data-binary", "@" + file, "-o",
                              dir.path() + "/echoed", base_ + "/echo"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("Transfer-Encoding: chunked"), std::string::npos);
  EXPECT_TRUE(read_file(dir.path() + "/echoed") == upload);
}

TEST_F(HttpsServerTest, AClientStillUploadingReadsIts413InsteadOfAReset) {
  // "modern" takes bodies up to 1 MiB; the client sends 16 MiB before it reads.
  TlsTestClient client(modern_port_, main_.cert);
  ASSERT_TRUE(client.ok()) << client.error();
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"));
  const std::string chunk = "40000\r\n" + std::string(256 * 1024, 'u') + "\r\n";
  bool sent = true;
  for (int i = 0; i < 64 && sent; ++i) sent = client.send(chunk);
  EXPECT_TRUE(sent) << "the upload was cut off before its answer was read";
  const std::string reply = client.receive(1 << 20, std::chrono::seconds(5));
  EXPECT_EQ(reply.rfind("HTTP/1.1 413 ", 0), 0u) << reply.substr(0, 200);
}

TEST_F(HttpsServerTest, OpensslClientNegotiatesTls12) {
  const RunResult run = s_client(port_, {"-tls1_2"}, main_.cert);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("New, TLSv1.2, Cipher is ECDHE-RSA-AES"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Hello, World!"), std::string::npos) << run.out;
}

TEST_F(HttpsServerTest, OpensslClientNegotiatesTls13) {
  const RunResult run = s_client(port_, {"-tls1_3"}, main_.cert);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("New, TLSv1.3, Cipher is TLS_"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Hello, World!"), std::string::npos) << run.out;
}

TEST_F(HttpsServerTest, MinimumVersionRefusesOlderClients) {
  const RunResult old_client = s_client(modern_port_, {"-tls1_2"}, main_.cert);
  EXPECT_NE(old_client.exit_code, 0);
  EXPECT_EQ(old_client.out.find("Hello, World!"), std::string::npos) << old_client.out;
  const RunResult new_client = s_client(modern_port_, {"-tls1_3"}, main_.cert);
  EXPECT_NE(new_client.out.find("Hello, World!"), std::string::npos) << new_client.out << new_client.err;
}

// HTTP/2 is on unless a listener turns it off ("modern" says nothing; "secure", above, turns it off):
// a client offering h2 gets it by ALPN, one offering only http/1.1 still gets that.
TEST_F(HttpsServerTest, AlpnSelectsH2ByDefault) {
  const RunResult both = s_client(modern_port_, {"-alpn", "h2,http/1.1"}, main_.cert);
  EXPECT_NE(both.out.find("ALPN protocol: h2"), std::string::npos) << both.out;
  const RunResult http11 = s_client(modern_port_, {"-alpn", "http/1.1"}, main_.cert);
  EXPECT_NE(http11.out.find("ALPN protocol: http/1.1"), std::string::npos) << http11.out;
  EXPECT_NE(http11.out.find("Hello, World!"), std::string::npos) << http11.out;
  const RunResult curl_default = curl({"-sS", "-o", "/dev/null", "-w", "%{http_version}",
                                       "https://localhost:" + std::to_string(modern_port_) + "/plaintext"});
  EXPECT_EQ(curl_default.out, "2") << curl_default.err;
}

// With HTTP/2 turned off ("secure"), ALPN offers only http/1.1.
TEST_F(HttpsServerTest, AlpnSelectsHttp11AndRefusesOnlyOtherProtocols) {
  const RunResult both = s_client(port_, {"-alpn", "h2,http/1.1"}, main_.cert);
  EXPECT_NE(both.out.find("ALPN protocol: http/1.1"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("Hello, World!"), std::string::npos) << both.out;
  const RunResult h2_only = s_client(port_, {"-alpn", "h2"}, main_.cert);
  EXPECT_NE(h2_only.err.find("no application protocol"), std::string::npos) << h2_only.err;
  const RunResult none = s_client(port_, {}, main_.cert);
  EXPECT_NE(none.out.find("No ALPN negotiated"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("Hello, World!"), std::string::npos) << none.out;
}

TEST_F(HttpsServerTest, SniChoosesTheCertificate) {
  struct Case {
    std::vector<std::string> args;
    std::string ca;
    std::string subject;
  };
  const std::vector<Case> cases{
      {{"-servername", "a.test"}, a_.cert, "subject=CN = a.test"},
      {{"-servername", "A.TEST"}, a_.cert, "subject=CN = a.test"},
      {{"-servername", "x.b.test"}, b_.cert, "subject=CN = wild.b.test"},
      {{"-servername", "b.test"}, main_.cert, "subject=CN = localhost"},  // a wildcard needs a label
      {{"-servername", "unknown.test"}, main_.cert, "subject=CN = localhost"},
      {{"-noservername"}, main_.cert, "subject=CN = localhost"},
  };
  for (const Case& c : cases) {
    for (const char* version : {"-tls1_2", "-tls1_3"}) {
      std::vector<std::string> args = c.args;
      args.push_back(version);
      const RunResult run = s_client(port_, args, c.ca);
      EXPECT_EQ(run.exit_code, 0) << c.args[0] << " " << version << ": " << run.err;
      EXPECT_NE(run.out.find(c.subject), std::string::npos) << c.args[0] << " " << version << ": " << run.out;
      EXPECT_NE(run.out.find("Hello, World!"), std::string::npos) << c.args[0] << " " << version;
    }
  }
}

TEST_F(HttpsServerTest, SessionsResumeWithTickets) {
  TempDir dir;
  for (const char* version : {"-tls1_2", "-tls1_3"}) {
    const std::string session = dir.path() + "/session" + version;
    const RunResult first = s_client(port_, {version, "-sess_out", session}, main_.cert);
    EXPECT_NE(first.out.find("New, TLSv1."), std::string::npos) << version << ": " << first.out;
    const RunResult second = s_client(port_, {version, "-sess_in", session}, main_.cert);
    EXPECT_NE(second.out.find("Reused, TLSv1."), std::string::npos) << version << ": " << second.out;
    EXPECT_NE(second.out.find("Hello, World!"), std::string::npos) << version;
  }
}

TEST_F(HttpsServerTest, TicketsCanBeTurnedOff) {
  TempDir dir;
  const std::string session = dir.path() + "/session";
  const RunResult first = s_client(modern_port_, {"-tls1_3", "-sess_out", session}, main_.cert);
  EXPECT_NE(first.out.find("Hello, World!"), std::string::npos) << first.out;
  EXPECT_TRUE(read_file(session).empty()) << "a TLS 1.3 ticket was issued";
}

TEST_F(HttpsServerTest, WithoutTicketsTls12StillResumesBySessionId) {
  TempDir dir;
  const std::string session = dir.path() + "/session";
  const RunResult first = s_client(stateful_port_, {"-tls1_2", "-sess_out", session}, main_.cert);
  EXPECT_NE(first.out.find("New, TLSv1.2"), std::string::npos) << first.out;
  EXPECT_EQ(first.out.find("TLS session ticket:"), std::string::npos) << "a ticket was issued: " << first.out;
  const RunResult second = s_client(stateful_port_, {"-tls1_2", "-sess_in", session}, main_.cert);
  EXPECT_NE(second.out.find("Reused, TLSv1.2"), std::string::npos) << second.out;
}

TEST_F(HttpsServerTest, EchoRunsOverTls) {
  TlsTestClient client(echo_port_, main_.cert);
  ASSERT_TRUE(client.ok()) << client.error();
  const std::string payload = random_bytes(200 * 1024, 13);
  for (std::size_t at = 0; at < payload.size(); at += 50 * 1024) {
    ASSERT_TRUE(client.send(std::string_view(payload).substr(at, 50 * 1024)));
    EXPECT_TRUE(client.receive(50 * 1024) == payload.substr(at, 50 * 1024));
  }
}

TEST_F(HttpsServerTest, GarbageInsteadOfAClientHelloIsClosedAndCounted) {
  const long before = counter(status(), "tls_handshake_failures");
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(fd);
  const std::string garbage = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
  ::send(fd.get(), garbage.data(), garbage.size(), MSG_NOSIGNAL);
  const std::string answer = echo_roundtrip(fd.get(), "", true, 5s);  // waits for the server to close
  EXPECT_EQ(answer.find("HTTP/1.1"), std::string::npos) << "plaintext HTTP was answered on a TLS port";
  EXPECT_EQ(counter(status(), "tls_handshake_failures"), before + 1);
  EXPECT_EQ(curl({base_ + "/plaintext"}).out, "Hello, World!");
}

TEST_F(HttpsServerTest, AClientStallingMidHandshakeIsClosedAfterTheTimeout) {
  const long before = counter(status(), "timeouts_handshake");
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(fd);
  const char partial_hello[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";  // a record header and then nothing
  ::send(fd.get(), partial_hello, sizeof partial_hello - 1, MSG_NOSIGNAL);
  const auto start = std::chrono::steady_clock::now();
  char byte = 0;
  timeval patience{5, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  const ssize_t got = ::recv(fd.get(), &byte, 1, 0);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_LE(got, 0) << "the server answered a partial ClientHello";
  EXPECT_GE(waited, 250ms);
  EXPECT_LT(waited, 3s) << "the handshake timeout (300 ms) did not close the connection";
  EXPECT_EQ(counter(status(), "timeouts_handshake"), before + 1);
  EXPECT_EQ(curl({base_ + "/plaintext"}).out, "Hello, World!");
}

TEST_F(HttpsServerTest, ResetsMidStreamLeaveTheServerServing) {
  {  // mid-request
    TlsTestClient client(port_, main_.cert);
    ASSERT_TRUE(client.ok()) << client.error();
    ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\npartial"));
    client.reset();
  }
  {  // mid-response: a 3 MiB download dropped after its first bytes
    TlsTestClient client(port_, main_.cert);
    ASSERT_TRUE(client.ok()) << client.error();
    ASSERT_TRUE(client.send("GET /files/big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n"));
    EXPECT_GE(client.receive(1000).size(), 1000u);
    client.reset();
  }
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(curl({base_ + "/plaintext"}).out, "Hello, World!");
  EXPECT_EQ(counter(status(), "connections_open"), 1);  // only the status request's own
}

// Start-up refusals, one line each: the file, the JSON path, what was expected.
class TlsRefusalTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<TempDir>();
    main_ = make_certificate(*dir_, "main", "localhost", "DNS:localhost");
    other_ = make_certificate(*dir_, "other", "other", "DNS:other");
    dir_->write("garbage.pem", "-----BEGIN NONSENSE-----\nnot base64 at all\n");
  }
  static void TearDownTestSuite() { dir_.reset(); }

  // The binary's stderr after refusing `tls_json` on an https listener.
  static std::string refusal(const std::string& tls_json) {
    const std::string config = dir_->write("bad.json", R"({"listeners": [{"name": "web", "address": "127.0.0.1:0",
        "protocol": "http", "routes": [], "tls": )" + tls_json +
                                                           "}]}");
    const RunResult run = run_tiffany({"--config", config});
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_EQ(run.err.find("\" serving "), std::string::npos) << run.err;
    const std::string prefix = "tiffany: config error: " + config + ": ";
    EXPECT_EQ(run.err.rfind(prefix, 0), 0u) << run.err;
    return run.err.substr(std::min(prefix.size(), run.err.size()));
  }
  static std::string pair(const std::string& cert, const std::string& key) {
    return R"({"cert": ")" + cert + R"(", "key": ")" + key + R"("})";
  }

  static inline std::unique_ptr<TempDir> dir_;
  static inline Certificate main_, other_;
};

TEST_F(TlsRefusalTest, AnUnreadableFile) {
  EXPECT_EQ(refusal(pair(dir_->path() + "/missing.crt", main_.key)),
            "$.listeners[0].tls.cert: cannot read \"" + dir_->path() + "/missing.crt\": No such file or directory\n");
}

TEST_F(TlsRefusalTest, ABadCertificate) {
  EXPECT_EQ(refusal(pair(main_.key, main_.key)),
            "$.listeners[0].tls.cert: \"" + main_.key + "\" holds no PEM certificate\n");
}

TEST_F(TlsRefusalTest, ABadKey) {
  EXPECT_EQ(refusal(pair(main_.cert, dir_->path() + "/garbage.pem")),
            "$.listeners[0].tls.key: \"" + dir_->path() + "/garbage.pem\" holds no PEM private key\n");
}

TEST_F(TlsRefusalTest, AMismatchedPair) {
  EXPECT_EQ(
      refusal(R"([{"cert": ")" + main_.cert + R"(", "key": ")" + main_.key +
              R"("}, {"server_names": ["other"], "cert": ")" + other_.cert + R"(", "key": ")" + main_.key + R"("}])"),
      "$.listeners[0].tls[1].key: the key in \"" + main_.key + "\" does not match the certificate in \"" + other_.cert +
          "\"\n");
}

TEST_F(TlsRefusalTest, AnUnknownKey) {
  EXPECT_EQ(refusal(R"({"cert": ")" + main_.cert + R"(", "key": ")" + main_.key + R"(", "ticket": true})"),
            "$.listeners[0].tls.ticket: unknown key; expected one of \"server_names\", \"cert\", \"key\", "
            "\"min_version\", \"ciphers\", \"ciphersuites\", \"session_tickets\", \"handshake_timeout_ms\"\n");
}

TEST_F(TlsRefusalTest, ABadVersion) {
  EXPECT_EQ(refusal(R"({"cert": ")" + main_.cert + R"(", "key": ")" + main_.key + R"(", "min_version": "1.0"})"),
            "$.listeners[0].tls.min_version: expected one of \"1.2\", \"1.3\", got \"1.0\"\n");
}

TEST_F(TlsRefusalTest, CheckConfigReadsTheCertificatesToo) {
  const std::string config = dir_->write("check.json", R"({"listeners": [{"name": "web", "address": "127.0.0.1:0",
      "protocol": "echo", "tls": )" + pair(main_.cert, other_.key) +
                                                           "}]}");
  const RunResult run = run_tiffany({"--check-config", "--config", config});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("does not match the certificate"), std::string::npos) << run.err;
}

TEST_F(TlsRefusalTest, PathsAreRelativeToTheConfigFile) {
  const std::string config = dir_->write("relative.json", R"({"listeners": [{"name": "web", "address": "127.0.0.1:0",
      "protocol": "echo", "tls": {"cert": "main.crt", "key": "main.key"}}]})");
  const RunResult run = run_tiffany({"--check-config", "--config", config});
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

}  // namespace
}  // namespace tiffany::testing
