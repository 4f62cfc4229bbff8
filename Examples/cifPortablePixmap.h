/*=========================================================================
 *
 *  Copyright the CudaImageFilters contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
#ifndef cifPortablePixmap_h
#define cifPortablePixmap_h

// PPM/PGM (Netpbm) reading and writing for the zoom tool: ITK has no reader for the
// seed's format. 8-bit binary (P6, P5) and ASCII (P3, P2) files; a malformed file is
// refused with a message that says what is wrong, never read half.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace cif_example
{
/** Interleaved 8-bit pixels: 1 (gray) or 3 (RGB) components. */
struct Pixmap
{
  std::size_t               width = 0, height = 0;
  int                       components = 3;
  std::vector<std::uint8_t> data;
};

/** True when \a path starts with a Netpbm magic number (P2, P3, P5, P6). */
inline bool
IsPortablePixmap(const std::string & path)
{
  std::ifstream file(path, std::ios::binary);
  char          magic[2] = { 0, 0 };
  file.read(magic, 2);
  return file && magic[0] == 'P' && (magic[1] == '2' || magic[1] == '3' || magic[1] == '5' || magic[1] == '6');
}

inline Pixmap
ReadPortablePixmap(const std::string & path)
{
  std::ifstream file(path, std::ios::binary);
  if (!file)
  {
    throw std::runtime_error("cannot read " + path + " (missing or unreadable file)");
  }
  auto fail = [&](const std::string & why) { return std::runtime_error(path + ": not a usable PPM/PGM file: " + why); };
  // Header fields are separated by whitespace; '#' starts a comment up to the line end.
  auto next = [&]() -> long {
    int c = file.get();
    while (c != EOF && (std::isspace(c) || c == '#'))
    {
      if (c == '#')
        while (c != EOF && c != '\n')
          c = file.get();
      c = file.get();
    }
    if (c == EOF || !std::isdigit(c))
    {
      throw fail("bad or truncated header");
    }
    long v = 0;
    while (c != EOF && std::isdigit(c))
    {
      v = v * 10 + (c - '0');
      if (v > 1000000000L)
        throw fail("header number too large");
      c = file.get();
    }
    if (c != EOF && !std::isspace(c))
      throw fail("bad header");
    return v;
  };
  char magic[2] = { 0, 0 };
  file.read(magic, 2);
  if (!file || magic[0] != 'P' || (magic[1] != '2' && magic[1] != '3' && magic[1] != '5' && magic[1] != '6'))
  {
    throw fail("no P2/P3/P5/P6 magic number");
  }
  Pixmap p;
  p.components = (magic[1] == '3' || magic[1] == '6') ? 3 : 1;
  p.width = static_cast<std::size_t>(next());
  p.height = static_cast<std::size_t>(next());
  const long maxval = next();
  if (p.width == 0 || p.height == 0)
    throw fail("zero width or height");
  if (maxval < 1 || maxval > 255)
    throw fail("maxval " + std::to_string(maxval) + " (only 8-bit files, maxval 1 to 255, are supported)");
  const std::size_t count = p.width * p.height * p.components;
  p.data.resize(count);
  if (magic[1] == '5' || magic[1] == '6')
  {
    file.read(reinterpret_cast<char *>(p.data.data()), static_cast<std::streamsize>(count));
    if (static_cast<std::size_t>(file.gcount()) != count)
      throw fail("pixel data truncated (" + std::to_string(file.gcount()) + " of " + std::to_string(count) + " bytes)");
  }
  else
  {
    for (auto & v : p.data)
    {
      long x = 0;
      if (!(file >> x) || x < 0 || x > maxval)
        throw fail("bad or missing ASCII sample");
      v = static_cast<std::uint8_t>(x);
    }
  }
  if (maxval != 255)
  {
    for (auto & v : p.data)
      v = static_cast<std::uint8_t>((v * 255 + maxval / 2) / maxval);
  }
  return p;
}

/** Writes binary P6 (3 components) or P5 (1) to \a path, to a temporary name first
 * and renamed at the end: a failure leaves no half-written file. */
inline void
WritePortablePixmap(const Pixmap & p, const std::string & path)
{
  if (p.components != 1 && p.components != 3)
  {
    throw std::runtime_error("PPM/PGM holds 1 or 3 components per pixel, not " + std::to_string(p.components));
  }
  const std::string partial = path + ".partial";
  {
    std::ofstream file(partial, std::ios::binary | std::ios::trunc);
    file << (p.components == 3 ? "P6\n" : "P5\n") << p.width << " " << p.height << "\n255\n";
    file.write(reinterpret_cast<const char *>(p.data.data()), static_cast<std::streamsize>(p.data.size()));
    file.close();
    if (!file)
    {
      std::remove(partial.c_str());
      throw std::runtime_error("cannot write " + path);
    }
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0)
  {
    std::remove(partial.c_str());
    throw std::runtime_error("cannot rename " + partial + " to " + path);
  }
}
} // namespace cif_example

#endif
