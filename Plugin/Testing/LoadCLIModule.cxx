// Loads a CLI module's shared library as 3D Slicer does (itksys::DynamicLoader, the
// loader Slicer's module factory uses): resolves XMLModuleDescription and
// ModuleEntryPoint, checks the description, then runs the entry point with the
// remaining arguments and returns its status. A test host, not part of the module.
//
//   LoadCLIModule library.so [module arguments...]
#include <itksys/DynamicLoader.hxx>

#include <iostream>
#include <string>
#include <vector>

int
main(int argc, char * argv[])
{
  if (argc < 2)
  {
    std::cerr << "usage: LoadCLIModule library [arguments]\n";
    return 2;
  }
  const auto library = itksys::DynamicLoader::OpenLibrary(argv[1]);
  if (!library)
  {
    std::cerr << "error: cannot load " << argv[1] << ": " << itksys::DynamicLoader::LastError() << "\n";
    return 3;
  }
  const auto * description =
    reinterpret_cast<const char *>(itksys::DynamicLoader::GetSymbolAddress(library, "XMLModuleDescription"));
  using EntryPoint = int (*)(int, char **);
  const auto entryPoint =
    reinterpret_cast<EntryPoint>(itksys::DynamicLoader::GetSymbolAddress(library, "ModuleEntryPoint"));
  if (!description || !entryPoint)
  {
    std::cerr << "error: " << argv[1] << " lacks XMLModuleDescription or ModuleEntryPoint\n";
    return 3;
  }
  const std::string xml(description);
  const auto        title = xml.find("<title>");
  if (xml.find("<executable>") == std::string::npos || title == std::string::npos)
  {
    std::cerr << "error: XMLModuleDescription is not a module description\n";
    return 3;
  }
  std::cout << "loaded module: " << xml.substr(title + 7, xml.find("</title>") - title - 7) << "\n";
  // the module sees its library path as argv[0], as Slicer passes it
  std::vector<char *> arguments(argv + 1, argv + argc);
  arguments.push_back(nullptr);
  const int status = entryPoint(argc - 1, arguments.data());
  std::cout << "module returned " << status << "\n";
  itksys::DynamicLoader::CloseLibrary(library);
  return status;
}
