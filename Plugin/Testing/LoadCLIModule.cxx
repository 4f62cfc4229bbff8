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
// A test host that loads a CLI module's shared library and runs it the way 3D Slicer
// does: itksys::DynamicLoader (the loader Slicer's module factory uses) resolves the
// description as Slicer's ModuleFactory does (the data symbol XMLModuleDescription, or
// else the function GetXMLModuleDescription, which these modules export) and
// ModuleEntryPoint; the description is parsed with expat
// (ITK's XML parser) and checked for what Slicer shows (see CheckDescription); then
// the entry point runs as Slicer calls it — the target first, then
// --processinformationaddress <a real ModuleProcessInformation, printed with %p>,
// --returnparameterfile <file>, then the module's own arguments — and the host checks
// what came back. Not part of the module.
//
//   LoadCLIModule [host options] library [module arguments...]
//     --describe           check the description only, do not run the module
//     --status N           the status the module must return (default 0)
//     --abort-at P         set Abort once Progress reaches P (then: the status must
//                          not be 0, no return file may be written)
//     --absent PATH        PATH must not exist after the run (removed before it;
//                          repeatable)
//     --expect NAME=VALUE  the return file must hold this line (repeatable)
//
// On a successful run (status 0) the host also requires: Progress reached 1, the
// callback ran and Progress never went back, ElapsedTime grew, and the return file
// holds a line for every output parameter the description declares. It prints what it
// checked and returns 0 when everything holds, 1 otherwise (3: cannot load).
#include "cifITKPoolParking.h"
#include "cifITKPoolParking.h"
#include "cifModuleProcessInformation.h"

#include <expat.h>
#include <itksys/DynamicLoader.hxx>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace
{
/** An element of the description: its name, attributes, text and children. */
struct Element
{
  std::string                           name;
  std::map<std::string, std::string>    attributes;
  std::string                           text;
  std::vector<std::unique_ptr<Element>> children;
  Element *                             parent = nullptr;

  const Element *
  Child(const std::string & childName) const
  {
    for (const auto & c : children)
    {
      if (c->name == childName)
      {
        return c.get();
      }
    }
    return nullptr;
  }
  std::string
  ChildText(const std::string & childName) const
  {
    const Element * c = this->Child(childName);
    return c ? c->text : std::string();
  }
};

/** The description as a tree, or an error message when expat finds it malformed. */
std::unique_ptr<Element>
ParseDescription(const std::string & xml, std::string & error)
{
  auto       root = std::make_unique<Element>();
  Element *  current = root.get();
  XML_Parser parser = XML_ParserCreate(nullptr);
  XML_SetUserData(parser, &current);
  XML_SetElementHandler(
    parser,
    [](void * data, const XML_Char * name, const XML_Char ** attributes) {
      auto & at = *static_cast<Element **>(data);
      auto   child = std::make_unique<Element>();
      child->name = name;
      child->parent = at;
      for (int i = 0; attributes[i]; i += 2)
      {
        child->attributes[attributes[i]] = attributes[i + 1];
      }
      at->children.push_back(std::move(child));
      at = at->children.back().get();
    },
    [](void * data, const XML_Char *) {
      auto & at = *static_cast<Element **>(data);
      at = at->parent;
    });
  XML_SetCharacterDataHandler(parser, [](void * data, const XML_Char * text, int length) {
    (*static_cast<Element **>(data))->text.append(text, static_cast<std::size_t>(length));
  });
  if (XML_Parse(parser, xml.data(), static_cast<int>(xml.size()), 1) == XML_STATUS_ERROR)
  {
    error = std::string(XML_ErrorString(XML_GetErrorCode(parser))) + " at line " +
            std::to_string(XML_GetCurrentLineNumber(parser));
    XML_ParserFree(parser);
    return nullptr;
  }
  XML_ParserFree(parser);
  return root;
}

bool
Blank(const std::string & text)
{
  return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

/** Checks the description for what Slicer needs and shows: the module's own elements,
 * every parameter named, labelled, described and reachable (a flag or an index, or an
 * output parameter returned through the return file), image parameters typed and
 * channelled. Prints each problem; returns the output parameters the module returns
 * through the return file (non-file parameters of channel output). */
std::vector<std::string>
CheckDescription(const Element & executable, int & problems)
{
  auto problem = [&](const std::string & what) {
    std::cout << "description problem: " << what << "\n";
    ++problems;
  };
  for (const char * element : { "category",
                                "title",
                                "description",
                                "version",
                                "documentation-url",
                                "license",
                                "contributor",
                                "acknowledgements" })
  {
    if (Blank(executable.ChildText(element)))
    {
      problem(std::string("no <") + element + ">");
    }
  }
  const std::set<std::string> fileLike{ "image", "file",        "directory", "transform", "geometry",
                                        "table", "measurement", "point",     "pointfile", "region" };
  const std::set<std::string> imageTypes{ "scalar", "label", "vector", "tensor", "diffusion-weighted", "any" };
  std::vector<std::string>    returned;
  int                         groups = 0;
  for (const auto & group : executable.children)
  {
    if (group->name != "parameters")
    {
      continue;
    }
    ++groups;
    if (Blank(group->ChildText("label")))
    {
      problem("a <parameters> group without a <label>");
    }
    for (const auto & p : group->children)
    {
      if (p->name == "label" || p->name == "description")
      {
        continue;
      }
      const std::string name = p->ChildText("name");
      const std::string where = "<" + p->name + "> " + (name.empty() ? std::string("(unnamed)") : name);
      if (name.empty())
      {
        problem(where + " has no <name>");
      }
      if (Blank(p->ChildText("label")))
      {
        problem(where + " has no <label>");
      }
      if (Blank(p->ChildText("description")))
      {
        problem(where + " has no <description>");
      }
      const std::string channel = p->ChildText("channel");
      const bool        reachable = p->Child("index") || p->Child("flag") || p->Child("longflag");
      if (p->name == "image")
      {
        if (imageTypes.count(p->attributes["type"]) == 0)
        {
          problem(where + " has no valid type attribute (scalar, label, vector, tensor, diffusion-weighted, any)");
        }
        if (channel != "input" && channel != "output")
        {
          problem(where + " has no <channel> input or output");
        }
      }
      if (fileLike.count(p->name) == 0 && channel == "output")
      {
        if (reachable)
        {
          problem(where + " is an output parameter with a flag or an index (Slicer reads it from the return file)");
        }
        returned.push_back(name);
      }
      else if (!reachable)
      {
        problem(where + " has neither a flag nor an index: Slicer cannot pass it");
      }
    }
  }
  if (groups == 0)
  {
    problem("no <parameters> group");
  }
  return returned;
}

/** What the host's callback sees, through ProgressCallbackClientData. */
struct HostState
{
  ModuleProcessInformation * info = nullptr;
  int                        calls = 0;
  float                      lastProgress = 0.f;
  bool                       wentBack = false;
  double                     abortAt = -1.0;
};

void
Callback(void * data)
{
  auto * state = static_cast<HostState *>(data);
  ++state->calls;
  if (state->info->Progress < state->lastProgress)
  {
    state->wentBack = true;
  }
  state->lastProgress = state->info->Progress;
  if (state->abortAt >= 0.0 && state->info->Progress >= state->abortAt)
  {
    state->info->Abort = 1;
  }
}

std::string
ReadFile(const std::string & path)
{
  std::ifstream     in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool
Exists(const std::string & path)
{
  return std::ifstream(path).good();
}
} // namespace

int
main(int argc, char * argv[])
{
  const cif::ITKPoolParkedAtExit parkedAtExit; // ITK 5.2 aborts some exits otherwise (cifITKPoolParking.h)
  bool                           describeOnly = false;
  int                            expectedStatus = 0;
  HostState                      state;
  std::vector<std::string>       absent, expected;
  int                            a = 1;
  for (; a < argc && std::string(argv[a]).rfind("--", 0) == 0; ++a)
  {
    const std::string option = argv[a];
    if (option == "--describe")
    {
      describeOnly = true;
      continue;
    }
    if (a + 1 >= argc)
    {
      std::cerr << "error: " << option << " needs a value\n";
      return 2;
    }
    const std::string value = argv[++a];
    if (option == "--status")
      expectedStatus = std::atoi(value.c_str());
    else if (option == "--abort-at")
      state.abortAt = std::atof(value.c_str());
    else if (option == "--absent")
      absent.push_back(value);
    else if (option == "--expect")
      expected.push_back(value);
    else
    {
      std::cerr << "error: unknown host option " << option << "\n";
      return 2;
    }
  }
  if (a >= argc)
  {
    std::cerr << "usage: LoadCLIModule [--describe] [--status N] [--abort-at P] [--absent PATH] [--expect NAME=VALUE] "
                 "library [arguments]\n";
    return 2;
  }
  const char * libraryPath = argv[a++];
  const auto   library = itksys::DynamicLoader::OpenLibrary(libraryPath);
  if (!library)
  {
    std::cerr << "error: cannot load " << libraryPath << ": " << itksys::DynamicLoader::LastError() << "\n";
    return 3;
  }
  // Slicer's order: the character array first, the function where there is none
  const char * description =
    reinterpret_cast<const char *>(itksys::DynamicLoader::GetSymbolAddress(library, "XMLModuleDescription"));
  if (!description)
  {
    using DescriptionFunction = char * (*)();
    const auto describe = reinterpret_cast<DescriptionFunction>(
      itksys::DynamicLoader::GetSymbolAddress(library, "GetXMLModuleDescription"));
    description = describe ? describe() : nullptr;
  }
  using EntryPoint = int (*)(int, char **);
  const auto entryPoint =
    reinterpret_cast<EntryPoint>(itksys::DynamicLoader::GetSymbolAddress(library, "ModuleEntryPoint"));
  if (!description || !entryPoint)
  {
    std::cerr << "error: " << libraryPath
              << " lacks XMLModuleDescription (or GetXMLModuleDescription) or ModuleEntryPoint\n";
    return 3;
  }

  int         problems = 0;
  std::string parseError;
  const auto  root = ParseDescription(description, parseError);
  if (!root)
  {
    std::cout << "description problem: not well-formed XML: " << parseError << "\n";
    return 1;
  }
  const Element * executable = root->Child("executable");
  if (!executable)
  {
    std::cout << "description problem: the root element is not <executable>\n";
    return 1;
  }
  const std::vector<std::string> returned = CheckDescription(*executable, problems);
  std::cout << "loaded module: " << executable->ChildText("title") << " (" << returned.size()
            << " return parameter(s))\n";
  if (describeOnly)
  {
    std::cout << (problems == 0 ? "description complete\n" : "description incomplete\n");
    return problems == 0 ? 0 : 1;
  }

  // Slicer's call: the target, the struct's address, the return file, the arguments.
  ModuleProcessInformation info{};
  state.info = &info;
  info.ProgressCallbackFunction = &Callback;
  info.ProgressCallbackClientData = &state;
  char address[64];
  std::snprintf(address, sizeof address, "%p", static_cast<void *>(&info));
  const std::string returnFile = std::string(libraryPath) + ".return-" + std::to_string(::getpid()) + ".txt";
  std::remove(returnFile.c_str());
  std::vector<std::string> arguments{
    libraryPath, "--processinformationaddress", address, "--returnparameterfile", returnFile
  };
  arguments.insert(arguments.end(), argv + a, argv + argc);
  for (const auto & path : absent)
  {
    std::remove(path.c_str()); // left by an earlier run, it would prove nothing
  }
  std::vector<char *> pointers;
  for (auto & argument : arguments)
  {
    pointers.push_back(argument.data());
  }
  pointers.push_back(nullptr);
  const int status = entryPoint(static_cast<int>(arguments.size()), pointers.data());
  std::cout << "module returned " << status << "; progress " << info.Progress << " after " << state.calls
            << " callback(s), " << info.ElapsedTime << " s, last message \"" << info.ProgressMessage << "\"\n";

  auto fail = [&](const std::string & what) {
    std::cout << "host check failed: " << what << "\n";
    ++problems;
  };
  if (status != expectedStatus && !(state.abortAt >= 0.0 && status != 0))
  {
    fail("status " + std::to_string(status) + ", expected " + std::to_string(expectedStatus));
  }
  if (state.wentBack)
  {
    fail("Progress went back");
  }
  const bool returnFileWritten = Exists(returnFile);
  if (state.abortAt >= 0.0)
  {
    if (status == 0)
      fail("the module ran to the end although the host set Abort");
    if (!info.Abort)
      fail("Progress never reached " + std::to_string(state.abortAt) + ": Abort was not set");
    if (returnFileWritten)
      fail("an aborted run wrote the return file");
  }
  else if (status == 0)
  {
    const std::string text = ReadFile(returnFile);
    std::cout << "return file:\n" << text;
    if (info.Progress != 1.f)
      fail("Progress ended at " + std::to_string(info.Progress) + ", not 1");
    if (state.calls == 0)
      fail("the progress callback never ran");
    if (!(info.ElapsedTime > 0.0))
      fail("ElapsedTime was not written");
    for (const auto & name : returned)
    {
      if (text.find(name + " = ") == std::string::npos)
        fail("the return file lacks " + name);
    }
    for (const auto & line : expected)
    {
      const auto        equals = line.find('=');
      const std::string want = line.substr(0, equals) + " = " + line.substr(equals + 1) + "\n";
      if (text.find(want) == std::string::npos)
        fail("the return file lacks the line " + want.substr(0, want.size() - 1));
    }
  }
  for (const auto & path : absent)
  {
    if (Exists(path))
      fail(path + " exists");
  }
  std::remove(returnFile.c_str());
  itksys::DynamicLoader::CloseLibrary(library);
  std::cout << (problems == 0 ? "host checks passed\n" : "host checks FAILED\n");
  return problems == 0 ? 0 : 1;
}
