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
// A module's command line derived from its declaration (cifModuleDeclaration.h), as
// GenerateCLP derives Slicer's parsers from their XML: one TCLAP argument per
// declared parameter, with the declared flag, type, default, elements, requirement
// and position; --help shows each parameter's declared description. Values are read
// back by name, so a module's code names each parameter as its XML does.
#ifndef cifModuleArguments_h
#define cifModuleArguments_h

#include "cifCommandLineSupport.h"
#include "cifModuleCommandLine.h"
#include "cifModuleDeclaration.h"

#include <tclap/CmdLine.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cif
{
/** \class ModuleArguments
 * \brief The command line of one module run, built from the module's declaration.
 *
 * Parse() parses argc / argv (with Slicer's standard flags, ModuleCommandLine) and
 * then checks what TCLAP cannot: Enforced() ranges and the length of integer
 * vectors. Every error is a TCLAP::ArgException: status 2 from RunModule. Asking for a
 * parameter the declaration lacks, or as another kind, is the module's own bug
 * (std::logic_error). Built for one run: TCLAP's arguments keep their state. */
class ModuleArguments
{
public:
  explicit ModuleArguments(const ModuleDeclaration & module)
    : m_CommandLine(module.Description())
  {
    std::vector<const ModuleParameter *> positional;
    module.ForEachParameter([&](const ModuleParameter & p) {
      if (p.ValueKind() == ModuleParameter::Value::None)
      {
        return; // returned through the return file, not passed
      }
      if (p.Position() >= 0)
      {
        positional.push_back(&p);
        return;
      }
      this->Add(p);
    });
    // TCLAP fills unlabelled arguments in the order they were added
    std::sort(positional.begin(), positional.end(), [](const ModuleParameter * a, const ModuleParameter * b) {
      return a->Position() < b->Position();
    });
    for (const ModuleParameter * p : positional)
    {
      this->Add(*p);
    }
  }

  ModuleArguments(const ModuleArguments &) = delete;
  ModuleArguments &
  operator=(const ModuleArguments &) = delete;

  void
  Parse(int argc, char * argv[])
  {
    m_CommandLine.parse(argc, argv);
    for (auto & [name, bound] : m_Arguments)
    {
      const ModuleParameter & p = *bound.declaration;
      if (p.ValueKind() == ModuleParameter::Value::Integer)
      {
        // Slicer's <integer> is an int: a value past its range is an error here, not
        // a number narrowed into another one later.
        const long value = this->Get<long>(name, ModuleParameter::Value::Integer);
        if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
        {
          throw TCLAP::ArgException("is out of the range of an integer", p.Spelling());
        }
      }
      if (p.IsEnforced())
      {
        const double value = p.ValueKind() == ModuleParameter::Value::Integer
                               ? static_cast<double>(this->Get<long>(name, ModuleParameter::Value::Integer))
                               : this->Get<double>(name, ModuleParameter::Value::Real);
        if (!(value >= p.Minimum() && value <= p.Maximum()))
        {
          throw TCLAP::ArgException("must be " + ModuleParameter::Number(p.Minimum()) + " to " +
                                      ModuleParameter::Number(p.Maximum()),
                                    p.Spelling());
        }
      }
      if (p.ValueKind() == ModuleParameter::Value::IntegerList && bound.argument->isSet())
      {
        try
        {
          const std::string text = this->Get<std::string>(name, p.ValueKind());
          // Length 0: as many integers as the text holds (at least one)
          const std::size_t length =
            p.Length() > 0 ? p.Length() : 1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), ','));
          bound.integers = ParseIntegerList(text, length);
        }
        catch (const std::invalid_argument & e)
        {
          throw TCLAP::ArgException(e.what(), p.Spelling());
        }
      }
    }
  }

  /** Slicer's standard flags (--echo, --returnparameterfile, ...). */
  const ModuleCommandLine &
  CommandLine() const
  {
    return m_CommandLine;
  }

  bool
  Has(const std::string & name) const
  {
    return m_Arguments.count(name) != 0;
  }

  /** Whether the command line gave the parameter (rather than its default). */
  bool
  IsSet(const std::string & name) const
  {
    return this->Bound(name).argument->isSet();
  }

  bool
  Boolean(const std::string & name) const
  {
    return dynamic_cast<const TCLAP::SwitchArg &>(*this->Checked(name, ModuleParameter::Value::Switch)).getValue();
  }

  /** An integer parameter (Parse() refused values past the range of an int). */
  int
  Integer(const std::string & name) const
  {
    return static_cast<int>(this->Get<long>(name, ModuleParameter::Value::Integer));
  }

  double
  Double(const std::string & name) const
  {
    return this->Get<double>(name, ModuleParameter::Value::Real);
  }

  /** A string, an element of an enumeration, or a path ("" when not given). */
  std::string
  String(const std::string & name) const
  {
    return this->Get<std::string>(name, ModuleParameter::Value::Text);
  }

  /** A Multiple() parameter's values, in the order given (none when not given). */
  std::vector<std::string>
  Strings(const std::string & name) const
  {
    const auto * argument = this->Checked(name, ModuleParameter::Value::Text);
    if (!this->Bound(name).declaration->IsMultiple())
    {
      throw std::logic_error("the module's parameter " + name + " is not declared Multiple()");
    }
    return dynamic_cast<const TCLAP::MultiArg<std::string> &>(*argument).getValue();
  }

  /** An integer vector's integers, or none when not given. */
  std::optional<std::vector<long>>
  IntegerVector(const std::string & name) const
  {
    this->Checked(name, ModuleParameter::Value::IntegerList);
    return this->Bound(name).integers;
  }

private:
  struct BoundArgument
  {
    const ModuleParameter *                               declaration = nullptr;
    std::unique_ptr<TCLAP::ValuesConstraint<std::string>> constraint; // before the argument that points to it
    std::unique_ptr<TCLAP::Arg>                           argument;
    std::optional<std::vector<long>>                      integers; // an integer vector, parsed
  };

  template <typename T>
  static std::unique_ptr<TCLAP::Arg>
  MakeValueArgument(const ModuleParameter & p,
                    const T &               defaultValue,
                    const std::string &     typeDescription,
                    TCLAP::Constraint<T> *  constraint)
  {
    if (p.Position() >= 0) // --help shows it as <name>: TCLAP prints no other name for it
    {
      if (constraint)
      {
        return std::make_unique<TCLAP::UnlabeledValueArg<T>>(p.Name(), p.Description(), true, defaultValue, constraint);
      }
      return std::make_unique<TCLAP::UnlabeledValueArg<T>>(p.Name(), p.Description(), true, defaultValue, p.Name());
    }
    if (constraint)
    {
      return std::make_unique<TCLAP::ValueArg<T>>(
        p.ShortFlag(), p.Longflag(), p.Description(), p.IsRequired(), defaultValue, constraint);
    }
    return std::make_unique<TCLAP::ValueArg<T>>(
      p.ShortFlag(), p.Longflag(), p.Description(), p.IsRequired(), defaultValue, typeDescription);
  }

  void
  Add(const ModuleParameter & p)
  {
    BoundArgument bound;
    bound.declaration = &p;
    switch (p.ValueKind())
    {
      case ModuleParameter::Value::Switch:
        bound.argument =
          std::make_unique<TCLAP::SwitchArg>(p.ShortFlag(), p.Longflag(), p.Description(), p.Default() == "true");
        break;
      case ModuleParameter::Value::Integer:
        bound.argument = MakeValueArgument<long>(p, std::stol(p.Default()), "integer", nullptr);
        break;
      case ModuleParameter::Value::Real:
        bound.argument = MakeValueArgument<double>(p, std::stod(p.Default()), "number", nullptr);
        break;
      case ModuleParameter::Value::IntegerList:
      {
        std::string typeDescription = p.Length() > 0 ? "integer" : "integer[,integer...]";
        for (std::size_t i = 1; i < p.Length(); ++i)
        {
          typeDescription += ",integer";
        }
        bound.argument = MakeValueArgument<std::string>(p, "", typeDescription, nullptr);
        break;
      }
      case ModuleParameter::Value::Text:
      {
        if (!p.Elements().empty())
        {
          bound.constraint = std::make_unique<TCLAP::ValuesConstraint<std::string>>(p.Elements());
        }
        if (p.IsMultiple())
        {
          bound.argument = std::make_unique<TCLAP::MultiArg<std::string>>(
            p.ShortFlag(), p.Longflag(), p.Description(), p.IsRequired(), "path");
          break;
        }
        bound.argument =
          MakeValueArgument<std::string>(p, p.Default(), p.IsFileLike() ? "path" : "text", bound.constraint.get());
        break;
      }
      case ModuleParameter::Value::None:
        return;
    }
    m_CommandLine.add(*bound.argument);
    if (!m_Arguments.emplace(p.Name(), std::move(bound)).second)
    {
      throw std::logic_error("the module declares the parameter " + p.Name() + " twice");
    }
  }

  const BoundArgument &
  Bound(const std::string & name) const
  {
    const auto found = m_Arguments.find(name);
    if (found == m_Arguments.end())
    {
      throw std::logic_error("the module declares no parameter " + name);
    }
    return found->second;
  }

  const TCLAP::Arg *
  Checked(const std::string & name, ModuleParameter::Value kind) const
  {
    const BoundArgument & bound = this->Bound(name);
    if (bound.declaration->ValueKind() != kind)
    {
      throw std::logic_error("the module's parameter " + name + " is read as another kind than it is declared");
    }
    return bound.argument.get();
  }

  template <typename T>
  T
  Get(const std::string & name, ModuleParameter::Value kind) const
  {
    return dynamic_cast<const TCLAP::ValueArg<T> &>(*this->Checked(name, kind)).getValue();
  }

  ModuleCommandLine                    m_CommandLine;
  std::map<std::string, BoundArgument> m_Arguments; // node-based: the arguments TCLAP points to stay put
};
} // namespace cif

#endif
