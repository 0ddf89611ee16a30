// SpareOutputBuffers: this thread's buffers for ciphertext on its way out, reused last-in first-out.
#pragma once

#include "reactor/engine/spare_buffers.hpp"

namespace tiffany::tls {

/// Buffers for the records a TLS connection has produced and the socket has
/// not taken yet (CiphertextBuffers holds one only while it holds output).
/// Why 64 KiB, not SpareReadBuffers' 16 KiB: a full record is a little more
/// than 16 KiB, and several records in one buffer go out in one Send, so a
/// download wakes its peer once per 64 KiB, not per 16 KiB (a tenth of the
/// server's CPU).
using SpareOutputBuffers = SpareBuffers<64 * 1024, 64>;

}  // namespace tiffany::tls
