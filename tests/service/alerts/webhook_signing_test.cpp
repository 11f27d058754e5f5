#include "service/alerts/webhook_signing.h"

#include <set>

#include <gtest/gtest.h>

namespace logsift::webhook {
namespace {

TEST(WebhookBase64, EncodesRfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(WebhookBase64, DecodesAndRoundTripsBinary) {
  EXPECT_EQ(base64_decode(""), std::string());
  EXPECT_EQ(base64_decode("Zg=="), "f");
  EXPECT_EQ(base64_decode("Zm8="), "fo");
  EXPECT_EQ(base64_decode("Zm9vYmFy"), "foobar");
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t n = 0; n <= all.size(); n += 37) {
    const std::string part = all.substr(0, n);
    EXPECT_EQ(base64_decode(base64_encode(part)), part) << n;
  }
}

TEST(WebhookBase64, RejectsBadInput) {
  EXPECT_FALSE(base64_decode("Zg="));        // length not a multiple of 4
  EXPECT_FALSE(base64_decode("Zg"));         // missing padding
  EXPECT_FALSE(base64_decode("Z==="));       // too much padding
  EXPECT_FALSE(base64_decode("Zg=a"));       // padding in the middle
  EXPECT_FALSE(base64_decode("=Zg="));
  EXPECT_FALSE(base64_decode("Zm9v\nYmFy")); // whitespace
  EXPECT_FALSE(base64_decode("Zm9-"));       // base64url alphabet
  EXPECT_FALSE(base64_decode("Zh=="));       // non-zero unused bits
  EXPECT_FALSE(base64_decode("Zm9="));       // non-zero unused bits
}

// Expected value computed independently:
//   printf 'id.123.body' | openssl dgst -sha256 -hmac KEY -binary | base64
TEST(WebhookSigning, KnownAnswerRawSecret) {
  EXPECT_EQ(sign("KEY", "id", 123, "body"), "v1,nKGh5TP/VUV908j+F48GpT865K1Ig5b6QsyXO76Enh0=");
}

// The example of the Standard Webhooks specification; also checked with
//   printf 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}' |
//   openssl dgst -sha256 -mac HMAC -macopt hexkey:<hex of base64-decoded secret> -binary | base64
TEST(WebhookSigning, KnownAnswerWhsecSecret) {
  const std::string secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const std::string sig =
      sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, R"({"test": 2432232314})");
  EXPECT_EQ(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  // The whsec_ payload is decoded, not used as text.
  EXPECT_NE(sig, sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
                      1614265330, R"({"test": 2432232314})"));
}

TEST(WebhookSigning, SecretKeyDecoding) {
  EXPECT_EQ(secret_key("whsec_Zm9vYmFy"), "foobar");
  EXPECT_EQ(secret_key("plain secret"), "plain secret");
  EXPECT_FALSE(secret_key("whsec_not base64!"));
  EXPECT_FALSE(secret_key("whsec_"));
  EXPECT_FALSE(secret_key(""));
  EXPECT_EQ(sign("whsec_!!", "id", 1, "body"), "");
  EXPECT_FALSE(verify("whsec_!!", "id", 1, "body", "v1,"));
}

TEST(WebhookSigning, VerifyAcceptsRightRejectsTampered) {
  const std::string secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const std::string header = sign(secret, "msg_1", 1700000000, R"({"a":1})");
  EXPECT_TRUE(verify(secret, "msg_1", 1700000000, R"({"a":1})", header));
  EXPECT_FALSE(verify(secret, "msg_1", 1700000000, R"({"a":2})", header));   // body
  EXPECT_FALSE(verify(secret, "msg_2", 1700000000, R"({"a":1})", header));   // id
  EXPECT_FALSE(verify(secret, "msg_1", 1700000001, R"({"a":1})", header));   // timestamp
  EXPECT_FALSE(verify("whsec_Zm9vYmFy", "msg_1", 1700000000, R"({"a":1})", header));  // key
  EXPECT_FALSE(verify(secret, "msg_1", 1700000000, R"({"a":1})", "v2" + header.substr(2)));
  EXPECT_FALSE(verify(secret, "msg_1", 1700000000, R"({"a":1})", header.substr(0, header.size() - 4)));
  EXPECT_FALSE(verify(secret, "msg_1", 1700000000, R"({"a":1})", ""));
}

TEST(WebhookSigning, VerifyFindsOneOfSeveralSignatures) {
  // Key rotation: the sender signs with the old and the new secret.
  const std::string old_secret = "whsec_Zm9vYmFy";
  const std::string new_secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const std::string header = "v1a,ignored " + sign(old_secret, "m", 5, "b") + " " +
                             sign(new_secret, "m", 5, "b");
  EXPECT_TRUE(verify(old_secret, "m", 5, "b", header));
  EXPECT_TRUE(verify(new_secret, "m", 5, "b", header));
  EXPECT_FALSE(verify("whsec_YWJj", "m", 5, "b", header));
}

TEST(WebhookSigning, RandomIdShapeAndUniqueness) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = random_id("msg_");
    ASSERT_EQ(id.size(), 4u + 26u);
    EXPECT_EQ(id.substr(0, 4), "msg_");
    EXPECT_EQ(id.find_first_not_of("0123456789abcdefghjkmnpqrstvwxyz", 4), std::string::npos) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(random_id("").size(), 26u);
}

TEST(WebhookSigning, RandomSecretIsUsableWhsec) {
  const std::string a = random_secret();
  const std::string b = random_secret();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.substr(0, 6), "whsec_");
  const auto key = secret_key(a);
  ASSERT_TRUE(key);
  EXPECT_EQ(key->size(), 24u);
  const std::string sig = sign(a, "msg_1", 1, "{}");
  EXPECT_EQ(sig.substr(0, 3), "v1,");
  EXPECT_TRUE(verify(a, "msg_1", 1, "{}", sig));
  // random_id's base32 payload is not base64: it cannot serve as a secret.
  EXPECT_FALSE(secret_key(random_id("whsec_")));
}

}  // namespace
}  // namespace logsift::webhook
