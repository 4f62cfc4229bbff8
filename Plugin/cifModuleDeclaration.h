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
// A CLI module's parameters, declared once: each parameter's name, flags, type,
// channel, label, description, default, constraints or elements and index, in its
// group. Both faces of the module come from this one declaration, as Slicer's
// GenerateCLP derives its parser from the XML: the XML description Slicer reads
// (XML(), here) and the TCLAP command line (ModuleArguments, cifModuleArguments.h).
// Written twice, the two drifted apart (a flag renamed in one, a default changed in
// the other); declared once, they cannot.
#ifndef cifModuleDeclaration_h
#define cifModuleDeclaration_h

#include <cstdio>
#include <deque>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cif
{
/** \class ModuleParameter
 * \brief One parameter of a module: what Slicer shows and what the command line takes.
 *
 * Made by a ModuleParameterGroup (Integer(), Image(), ...), then refined by chained
 * calls: Index() makes it positional, Output() makes it an output (a file-like one is
 * written by the module; any other is a returned parameter, with no flag, that the
 * module reports through the return file), Range() gives Slicer's constraints.
 * Its long flag is its name (every module of the set names them so); a positional or
 * returned parameter has none. */
class ModuleParameter
{
public:
  /** How the command line holds the value. */
  enum class Value
  {
    Switch,      // boolean: present or not
    Integer,     // long
    Real,        // double
    Text,        // string, string-enumeration and every file-like parameter
    IntegerList, // integer-vector: "12,34"
    None         // a returned parameter: not on the command line
  };

  ModuleParameter(std::string element, Value value, std::string name, std::string label, std::string description)
    : m_Element(std::move(element))
    , m_Value(value)
    , m_Name(std::move(name))
    , m_Longflag(m_Value == Value::None ? std::string() : m_Name)
    , m_Label(std::move(label))
    , m_Description(std::move(description))
  {
    if (this->IsFileLike())
    {
      m_Channel = "input";
    }
  }

  /** The i-th positional argument (Slicer's <index>): no flag. */
  ModuleParameter &
  Index(int i)
  {
    m_Index = i;
    m_Longflag.clear();
    m_Flag.clear();
    return *this;
  }

  /** A one-letter flag besides the long one. */
  ModuleParameter &
  Flag(char letter)
  {
    m_Flag = std::string(1, letter);
    return *this;
  }

  /** Channel output: a file the module writes (image, file, ...). */
  ModuleParameter &
  Output()
  {
    m_Channel = "output";
    return *this;
  }

  /** The command line refuses a run without it (a flagged parameter: Slicer's XML
   * has no such element, so this is the command line's alone). */
  ModuleParameter &
  Required()
  {
    m_Required = true;
    return *this;
  }

  /** Slicer's <constraints>: the range (and slider step) its GUI offers. The command
   * line enforces the range only where Enforced() says so: elsewhere the module's
   * own checks (or none) decide, as before the declaration existed. */
  ModuleParameter &
  Range(double minimum, double maximum, double step)
  {
    m_Range = { Number(minimum), Number(maximum), Number(step) };
    m_Minimum = minimum;
    m_Maximum = maximum;
    return *this;
  }

  /** A value outside Range() is a bad argument (status 2, "must be MIN to MAX"). */
  ModuleParameter &
  Enforced()
  {
    m_Enforced = true;
    return *this;
  }

  /** Listed after the group's other parameters, whenever those are declared: a
   * parameter that every module's group ends with (executionPath, in the set's
   * shared Outputs group: cifModuleDescription.h) is declared once, before the
   * module's own. */
  ModuleParameter &
  Last()
  {
    m_Last = true;
    return *this;
  }

  /** An attribute of the element, in order: image and transform types, file extensions. */
  ModuleParameter &
  Attribute(const std::string & key, const std::string & value)
  {
    m_Attributes.emplace_back(key, value);
    return *this;
  }

  ModuleParameter &
  FileExtensions(const std::string & extensions)
  {
    return this->Attribute("fileExtensions", extensions);
  }

  /** A file-like input given any number of times (Slicer's multiple="true":
   * --name a --name b), read as ModuleArguments::Strings(). */
  ModuleParameter &
  Multiple()
  {
    m_Multiple = true;
    return this->Attribute("multiple", "true");
  }

  /** The XML element (integer, image, string-enumeration, ...). */
  const std::string &
  Element() const
  {
    return m_Element;
  }
  Value
  ValueKind() const
  {
    return m_Value;
  }
  const std::string &
  Name() const
  {
    return m_Name;
  }
  const std::string &
  Longflag() const
  {
    return m_Longflag;
  }
  const std::string &
  ShortFlag() const
  {
    return m_Flag;
  }
  const std::string &
  Description() const
  {
    return m_Description;
  }
  const std::string &
  Default() const
  {
    return m_Default;
  }
  const std::vector<std::string> &
  Elements() const
  {
    return m_Elements;
  }
  int
  Position() const
  {
    return m_Index;
  }
  bool
  IsRequired() const
  {
    return m_Required;
  }
  bool
  IsEnforced() const
  {
    return m_Enforced && !m_Range.empty();
  }
  double
  Minimum() const
  {
    return m_Minimum;
  }
  double
  Maximum() const
  {
    return m_Maximum;
  }
  std::size_t
  Length() const
  {
    return m_Length;
  }
  bool
  IsFileLike() const
  {
    return m_Element == "image" || m_Element == "file" || m_Element == "directory" || m_Element == "transform";
  }
  bool
  IsMultiple() const
  {
    return m_Multiple;
  }
  /** "--name" (or "-f"): how error messages name it. */
  std::string
  Spelling() const
  {
    return !m_Longflag.empty() ? "--" + m_Longflag : !m_Flag.empty() ? "-" + m_Flag : m_Name;
  }

  /** The element as Slicer's XML writes it, indented for a <parameters> group. */
  void
  WriteXML(std::ostream & out) const
  {
    out << "    <" << m_Element;
    for (const auto & [key, value] : m_Attributes)
    {
      out << ' ' << key << "=\"" << Escaped(value, true) << '"';
    }
    out << ">\n";
    Line(out, "name", m_Name);
    if (!m_Flag.empty())
    {
      Line(out, "flag", m_Flag);
    }
    if (!m_Longflag.empty())
    {
      Line(out, "longflag", m_Longflag);
    }
    Line(out, "label", m_Label);
    Line(out, "description", m_Description);
    if (!m_Channel.empty())
    {
      Line(out, "channel", m_Channel);
    }
    if (m_Index >= 0)
    {
      Line(out, "index", std::to_string(m_Index));
    }
    if (!m_Default.empty())
    {
      Line(out, "default", m_Default);
    }
    if (!m_Range.empty())
    {
      out << "      <constraints><minimum>" << m_Range[0] << "</minimum><maximum>" << m_Range[1] << "</maximum><step>"
          << m_Range[2] << "</step></constraints>\n";
    }
    for (const auto & element : m_Elements)
    {
      Line(out, "element", element);
    }
    out << "    </" << m_Element << ">\n";
  }

  /** A number as the XML and the messages write it: 5, 0.5, 127. */
  static std::string
  Number(double value)
  {
    char text[32];
    std::snprintf(text, sizeof text, "%.15g", value);
    return text;
  }

  /** Text content (or, with \a quotes, an attribute value) with XML's reserved
   * characters escaped; quotes need no escaping in text and are left as written. */
  static std::string
  Escaped(const std::string & text, bool quotes = false)
  {
    std::string escaped;
    for (const char c : text)
    {
      switch (c)
      {
        case '&':
          escaped += "&amp;";
          break;
        case '<':
          escaped += "&lt;";
          break;
        case '>':
          escaped += "&gt;";
          break;
        case '"':
          escaped += quotes ? "&quot;" : "\"";
          break;
        default:
          escaped += c;
      }
    }
    return escaped;
  }

private:
  friend class ModuleParameterGroup;

  static void
  Line(std::ostream & out, const char * tag, const std::string & text)
  {
    out << "      <" << tag << ">" << Escaped(text) << "</" << tag << ">\n";
  }

  std::string                                      m_Element;
  Value                                            m_Value;
  std::string                                      m_Name;
  std::string                                      m_Flag;
  std::string                                      m_Longflag;
  std::string                                      m_Label;
  std::string                                      m_Description;
  std::string                                      m_Channel;
  std::string                                      m_Default;
  std::vector<std::string>                         m_Elements;
  std::vector<std::string>                         m_Range; // minimum, maximum, step as written
  std::vector<std::pair<std::string, std::string>> m_Attributes;
  double                                           m_Minimum = 0.0;
  double                                           m_Maximum = 0.0;
  std::size_t                                      m_Length = 0; // integer-vector: how many integers (0: any)
  bool                                             m_Multiple = false;
  int                                              m_Index = -1;
  bool                                             m_Required = false;
  bool                                             m_Enforced = false;
  bool                                             m_Last = false;
};

/** \class ModuleParameterGroup
 * \brief A <parameters> group: a label, a description and its parameters in order.
 *
 * Each maker adds a parameter and returns it for refinement. Parameters are held in a
 * deque, so a reference to one stays valid while more are added. */
class ModuleParameterGroup
{
public:
  ModuleParameterGroup(std::string label, std::string description)
    : m_Label(std::move(label))
    , m_Description(std::move(description))
  {}

  /** A switch (Slicer: a check box); off unless given. */
  ModuleParameter &
  Boolean(const std::string & name, const std::string & label, const std::string & description)
  {
    return this->Add("boolean", ModuleParameter::Value::Switch, name, label, description, "false");
  }

  ModuleParameter &
  Integer(const std::string & name, const std::string & label, const std::string & description, long defaultValue)
  {
    return this->Add(
      "integer", ModuleParameter::Value::Integer, name, label, description, std::to_string(defaultValue));
  }

  ModuleParameter &
  Double(const std::string & name, const std::string & label, const std::string & description, double defaultValue)
  {
    return this->Add(
      "double", ModuleParameter::Value::Real, name, label, description, ModuleParameter::Number(defaultValue));
  }

  /** One of \a elements (the command line refuses others), \a defaultValue among them. */
  ModuleParameter &
  Enumeration(const std::string &                name,
              const std::string &                label,
              const std::string &                description,
              const std::string &                defaultValue,
              std::initializer_list<std::string> elements)
  {
    auto & p = this->Add("string-enumeration", ModuleParameter::Value::Text, name, label, description, defaultValue);
    p.m_Elements = elements;
    return p;
  }

  /** \a length comma-separated integers ("12,34"; \a length 0: any number of them,
   * at least one); none when not given. */
  ModuleParameter &
  IntegerVector(const std::string & name,
                const std::string & label,
                const std::string & description,
                std::size_t         length)
  {
    auto & p = this->Add("integer-vector", ModuleParameter::Value::IntegerList, name, label, description, "");
    p.m_Length = length;
    return p;
  }

  /** An image of Slicer's \a type (scalar, label, vector, tensor, diffusion-weighted, any). */
  ModuleParameter &
  Image(const std::string & name, const std::string & type, const std::string & label, const std::string & description)
  {
    return this->Add("image", ModuleParameter::Value::Text, name, label, description, "").Attribute("type", type);
  }

  /** A transform file of Slicer's \a type (linear, nonlinear, bspline). */
  ModuleParameter &
  Transform(const std::string & name,
            const std::string & type,
            const std::string & label,
            const std::string & description)
  {
    return this->Add("transform", ModuleParameter::Value::Text, name, label, description, "").Attribute("type", type);
  }

  ModuleParameter &
  File(const std::string & name, const std::string & label, const std::string & description)
  {
    return this->Add("file", ModuleParameter::Value::Text, name, label, description, "");
  }

  ModuleParameter &
  Directory(const std::string & name, const std::string & label, const std::string & description)
  {
    return this->Add("directory", ModuleParameter::Value::Text, name, label, description, "");
  }

  /** An output parameter of \a element (integer, double, string, ...) that the module
   * returns through the return file (ModuleRun::SetReturnParameter): no flag, channel
   * output. */
  ModuleParameter &
  Returned(const std::string & element,
           const std::string & name,
           const std::string & label,
           const std::string & description)
  {
    return this->Add(element, ModuleParameter::Value::None, name, label, description, "").Output();
  }

  void
  WriteXML(std::ostream & out) const
  {
    out << "  <parameters>\n";
    out << "    <label>" << ModuleParameter::Escaped(m_Label) << "</label>\n";
    out << "    <description>" << ModuleParameter::Escaped(m_Description) << "</description>\n";
    this->ForEach([&out](const ModuleParameter & p) { p.WriteXML(out); });
    out << "  </parameters>\n";
  }

  /** Every parameter, in the order the XML lists them. */
  void
  ForEach(const std::function<void(const ModuleParameter &)> & visit) const
  {
    for (const bool last : { false, true })
    {
      for (const auto & p : m_Parameters)
      {
        if (p.m_Last == last)
        {
          visit(p);
        }
      }
    }
  }

private:
  ModuleParameter &
  Add(const std::string &    element,
      ModuleParameter::Value value,
      const std::string &    name,
      const std::string &    label,
      const std::string &    description,
      const std::string &    defaultValue)
  {
    m_Parameters.emplace_back(element, value, name, label, description);
    m_Parameters.back().m_Default = defaultValue;
    return m_Parameters.back();
  }

  std::string                 m_Label;
  std::string                 m_Description;
  std::deque<ModuleParameter> m_Parameters;
};

/** \class ModuleDeclaration
 * \brief A module as Slicer describes it: its own elements, then its groups in order.
 *
 * Summary() is the one-line comment a run reports (Slicer's <filter-comment>). The
 * provenance elements (version, documentation address, license, contributor,
 * acknowledgements) are set with SetProvenance, for a set of modules at once (see
 * cifModuleDescription.h). */
class ModuleDeclaration
{
public:
  ModuleDeclaration(std::string category, std::string title, std::string description, std::string summary)
    : m_Category(std::move(category))
    , m_Title(std::move(title))
    , m_Description(std::move(description))
    , m_Summary(std::move(summary))
  {}

  /** The next <parameters> group; the reference stays valid while more are added. */
  ModuleParameterGroup &
  Group(const std::string & label, const std::string & description)
  {
    m_Groups.emplace_back(label, description);
    return m_Groups.back();
  }

  /** The elements after <description>, in order: (version, ...), (documentation-url, ...). */
  void
  SetProvenance(std::vector<std::pair<std::string, std::string>> elements)
  {
    m_Provenance = std::move(elements);
  }

  const std::string &
  Title() const
  {
    return m_Title;
  }
  const std::string &
  Description() const
  {
    return m_Description;
  }
  const std::string &
  Summary() const
  {
    return m_Summary;
  }

  /** Every parameter of every group, in the order the XML lists them. */
  void
  ForEachParameter(const std::function<void(const ModuleParameter &)> & visit) const
  {
    for (const auto & group : m_Groups)
    {
      group.ForEach(visit);
    }
  }

  /** The description Slicer reads (and --xml prints). */
  std::string
  XML() const
  {
    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<executable>\n";
    out << "  <category>" << ModuleParameter::Escaped(m_Category) << "</category>\n";
    out << "  <title>" << ModuleParameter::Escaped(m_Title) << "</title>\n";
    out << "  <description>" << ModuleParameter::Escaped(m_Description) << "</description>\n";
    for (const auto & [element, text] : m_Provenance)
    {
      out << "  <" << element << ">" << ModuleParameter::Escaped(text) << "</" << element << ">\n";
    }
    for (const auto & group : m_Groups)
    {
      group.WriteXML(out);
    }
    out << "</executable>\n";
    return out.str();
  }

private:
  std::string                                      m_Category;
  std::string                                      m_Title;
  std::string                                      m_Description;
  std::string                                      m_Summary;
  std::vector<std::pair<std::string, std::string>> m_Provenance;
  std::deque<ModuleParameterGroup>                 m_Groups;
};
} // namespace cif

#endif
