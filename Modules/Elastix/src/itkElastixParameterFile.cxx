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
// The elastix parameter-file syntax (elastix 5.0.1, Common/ParameterFileParser),
// compiled once: the readers of every dimension share it.
#include "itkElastixParameterFile.h"

#include <cmath>
#include <fstream>
#include <locale>
#include <sstream>

namespace itk
{
namespace
{
[[noreturn]] void
Throw(const std::string & description)
{
  throw ExceptionObject(__FILE__, __LINE__, description, "itk::ElastixParameterFile");
}

std::string
Trimmed(const std::string & text)
{
  const auto first = text.find_first_not_of(' ');
  if (first == std::string::npos)
  {
    return {};
  }
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

/** A line with tabs as spaces, without its comment and outer spaces (elastix's CheckLine). */
std::string
Cleaned(std::string line)
{
  if (!line.empty() && line.back() == '\r') // a file written on Windows
  {
    line.pop_back();
  }
  for (char & c : line)
  {
    if (c == '\t')
    {
      c = ' ';
    }
  }
  const auto comment = line.find("//");
  if (comment != std::string::npos)
  {
    line.erase(comment);
  }
  return Trimmed(line);
}

bool
ParseDouble(const std::string & token, double & value)
{
  std::istringstream in(token);
  in.imbue(std::locale::classic());
  in >> value;
  return !in.fail() && in.peek() == std::char_traits<char>::eof();
}
} // namespace

ElastixParameterFile
ElastixParameterFile::Read(const std::string & path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
  {
    Throw(path + ": cannot open the elastix parameter file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
  {
    Throw(path + ": cannot read the elastix parameter file");
  }
  return Parse(text.str(), path);
}

ElastixParameterFile
ElastixParameterFile::Parse(const std::string & text, const std::string & path)
{
  ElastixParameterFile file;
  file.m_FileName = path;
  std::istringstream lines(text);
  std::string        raw;
  unsigned int       number = 0;
  while (std::getline(lines, raw))
  {
    ++number;
    const std::string line = Cleaned(raw);
    if (line.empty())
    {
      continue;
    }
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (line.size() < 2 || line.front() != '(' || line.back() != ')')
    {
      Throw(where + "the line is not between brackets \"(...)\": " + Trimmed(raw));
    }
    const std::string inner = line.substr(1, line.size() - 2);
    // elastix's SplitLine: a quote starts a new element, a space outside quotes too
    std::vector<std::string> words(1);
    bool                     quoted = false;
    std::size_t              quotes = 0;
    for (const char c : inner)
    {
      if (c == '"')
      {
        words.emplace_back();
        quoted = !quoted;
        ++quotes;
      }
      else if (c == ' ' && !quoted)
      {
        words.emplace_back();
      }
      else
      {
        words.back().push_back(c);
      }
    }
    if (quotes % 2 == 1)
    {
      Throw(where + "the line has an odd number of quotes: " + Trimmed(raw));
    }
    std::string key;
    Entry       entry;
    entry.line = number;
    bool named = false;
    for (auto & word : words)
    {
      if (word.empty())
      {
        continue;
      }
      if (!named)
      {
        key = word;
        named = true;
      }
      else
      {
        entry.values.push_back(word);
      }
    }
    // elastix requires a name and at least one word after it (an empty "" counts)
    if (!named || inner.find(' ') == std::string::npos || Trimmed(inner.substr(inner.find(' '))).empty())
    {
      Throw(where + "the line holds no parameter name and value: " + Trimmed(raw));
    }
    if (key.find_first_of(".,:;!@#$%^&-+|<>?") != std::string::npos)
    {
      Throw(where + "the parameter name \"" + key + "\" has a character elastix refuses (.,:;!@#$%^&-+|<>?)");
    }
    for (const auto & value : entry.values)
    {
      if (value.find_first_of(",;!@#$%&|<>?") != std::string::npos)
      {
        Throw(where + "the value \"" + value + "\" of " + key + " has a character elastix refuses (,;!@#$%&|<>?)");
      }
    }
    const auto earlier = file.m_Entries.find(key);
    if (earlier != file.m_Entries.end())
    {
      Throw(where + key + " is given twice (first on line " + std::to_string(earlier->second.line) + ")");
    }
    file.m_Entries.emplace(key, std::move(entry));
  }
  return file;
}

bool
ElastixParameterFile::IsParameterFile(const std::string & path)
{
  std::ifstream in(path, std::ios::binary);
  std::string   raw;
  // the first meaningful line decides; a binary file has no short text line to offer
  for (int lines = 0; lines < 1000 && std::getline(in, raw); ++lines)
  {
    const std::string line = Cleaned(raw);
    if (!line.empty())
    {
      return line.size() >= 2 && line.front() == '(' && line.back() == ')';
    }
  }
  return false;
}

std::vector<std::string>
ElastixParameterFile::GetKeys() const
{
  std::vector<std::string> keys;
  for (const auto & entry : m_Entries)
  {
    keys.push_back(entry.first);
  }
  return keys;
}

const std::vector<std::string> &
ElastixParameterFile::GetValues(const std::string & key) const
{
  const auto found = m_Entries.find(key);
  if (found == m_Entries.end())
  {
    this->FailFile("the file has no (" + key + " ...) line");
  }
  return found->second.values;
}

unsigned int
ElastixParameterFile::GetLine(const std::string & key) const
{
  const auto found = m_Entries.find(key);
  return found == m_Entries.end() ? 0 : found->second.line;
}

std::string
ElastixParameterFile::GetString(const std::string & key, const std::string & fallback) const
{
  if (!this->Has(key))
  {
    return fallback;
  }
  const auto & values = this->GetValues(key);
  if (values.empty())
  {
    this->Fail(key, key + " has no value");
  }
  return values.front();
}

std::vector<double>
ElastixParameterFile::GetNumbers(const std::string & key, std::size_t count) const
{
  const auto & values = this->GetValues(key);
  if (count != 0 && values.size() != count)
  {
    this->Fail(key, key + " has " + std::to_string(values.size()) + " values, " + std::to_string(count) + " expected");
  }
  std::vector<double> numbers(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    if (!ParseDouble(values[i], numbers[i]) || !std::isfinite(numbers[i]))
    {
      this->Fail(key, "value " + std::to_string(i + 1) + " of " + key + " (\"" + values[i] + "\") is not a number");
    }
  }
  return numbers;
}

double
ElastixParameterFile::GetNumber(const std::string & key, double fallback) const
{
  if (!this->Has(key))
  {
    return fallback;
  }
  const auto & values = this->GetValues(key);
  if (values.empty())
  {
    this->Fail(key, key + " has no value");
  }
  double value = 0.0;
  if (!ParseDouble(values.front(), value) || !std::isfinite(value))
  {
    this->Fail(key, key + " (\"" + values.front() + "\") is not a number");
  }
  return value;
}

std::vector<long long>
ElastixParameterFile::GetIntegers(const std::string & key, std::size_t count, long long minimum) const
{
  const std::vector<double> numbers = this->GetNumbers(key, count);
  std::vector<long long>    integers(numbers.size());
  for (std::size_t i = 0; i < numbers.size(); ++i)
  {
    if (numbers[i] != std::floor(numbers[i]) || numbers[i] < static_cast<double>(minimum) || numbers[i] > 9.0e15)
    {
      this->Fail(key,
                 "value " + std::to_string(i + 1) + " of " + key + " (" + this->GetValues(key)[i] +
                   ") is not a whole number of at least " + std::to_string(minimum));
    }
    integers[i] = static_cast<long long>(numbers[i]);
  }
  return integers;
}

bool
ElastixParameterFile::GetBoolean(const std::string & key, bool fallback) const
{
  const std::string value = this->GetString(key, fallback ? "true" : "false");
  if (value != "true" && value != "false")
  {
    this->Fail(key, key + " is \"" + value + "\", not \"true\" or \"false\"");
  }
  return value == "true";
}

unsigned int
ElastixParameterFile::GetImageDimension() const
{
  if (!this->Has("FixedImageDimension"))
  {
    this->FailFile("the file has no (FixedImageDimension ...) line: is it an elastix transform parameter file?");
  }
  const long long fixed = this->GetIntegers("FixedImageDimension", 1, 1).front();
  if (fixed > 4)
  {
    this->Fail("FixedImageDimension", "FixedImageDimension " + std::to_string(fixed) + " is not 1 to 4");
  }
  if (this->Has("MovingImageDimension") && this->GetIntegers("MovingImageDimension", 1, 1).front() != fixed)
  {
    this->Fail("MovingImageDimension",
               "MovingImageDimension differs from FixedImageDimension " + std::to_string(fixed) +
                 ": an ITK transform maps D-D points only");
  }
  return static_cast<unsigned int>(fixed);
}

std::string
ElastixParameterFile::Where(const std::string & key) const
{
  const unsigned int line = this->GetLine(key);
  return line == 0 ? m_FileName + ": " : m_FileName + ":" + std::to_string(line) + ": ";
}

void
ElastixParameterFile::Fail(const std::string & key, const std::string & message) const
{
  Throw(this->Where(key) + message);
}

void
ElastixParameterFile::FailFile(const std::string & message) const
{
  Throw(m_FileName + ": " + message);
}
} // namespace itk
