// Go's way of showing text in messages, so that the C++ stages' messages
// match the Go stages' byte for byte, whatever bytes the user passed.

#ifndef CC_LAB_QUOTE_H_
#define CC_LAB_QUOTE_H_

#include <string>
#include <string_view>

namespace lab {

// Quote returns s as Go's %q verb (strconv.Quote) prints it: in double
// quotes, with Go escapes for quotes, backslashes, bytes that are not UTF-8
// and code points that are not printable.
std::string Quote(std::string_view s);

// IsPrint reports whether Go's strconv.IsPrint accepts the code point r:
// letters, marks, numbers, punctuation, symbols and the ASCII space.
bool IsPrint(char32_t r);

// TrimSpace returns s without leading and trailing white space as Go's
// bytes.TrimSpace defines it (Unicode's White_Space, in UTF-8).
std::string_view TrimSpace(std::string_view s);

}  // namespace lab

#endif  // CC_LAB_QUOTE_H_
