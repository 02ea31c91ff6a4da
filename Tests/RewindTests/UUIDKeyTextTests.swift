import Foundation
import GRDB
import Testing

@testable import Rewind

/// The engine writes and reads UUID keys' text itself rather than through Foundation (whose
/// Linux `snprintf` and `sscanf` cost more than the rest of a row): it must write exactly what
/// `uuidString` writes and accept exactly what `UUID(uuidString:)` accepts.
@Suite struct UUIDKeyTextTests {
  /// Random UUIDs and the extremes.
  static func uuids(_ count: Int) -> [UUID] {
    var uuids = (0..<count).map { _ in UUID() }
    uuids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
    uuids.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
    uuids.append(
      UUID(uuid: (0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10)))
    return uuids
  }

  @Test func keyTextIsUUIDStringsFormInEitherCase() {
    for uuid in Self.uuids(2_000) {
      #expect(uuid.keyText(lowercase: false) == uuid.uuidString)
      #expect(uuid.keyText(lowercase: true) == uuid.uuidString.lowercased())
    }
  }

  @Test func textInUUIDStringsFormIsParsedWithoutFoundation() throws {
    for uuid in Self.uuids(500) {
      let mixed = String(
        uuid.uuidString.enumerated().map { index, character in
          index % 2 == 0 ? character : Character(character.lowercased())
        })
      for text in [uuid.uuidString, uuid.uuidString.lowercased(), mixed] {
        var text = text
        #expect(text.withUTF8(UUID.parseKeyText) == uuid, "\(text)")
      }
    }
  }

  @Test func parsingAcceptsExactlyWhatFoundationAccepts() {
    let valid = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
    var texts = [
      valid, valid.lowercased(), "", "{\(valid)}", valid.replacingOccurrences(of: "-", with: ""), valid + " ",
      " " + valid, String(valid.dropLast()), valid + "A", valid + "\0", valid + "\0junk",
      "E621E1F8+C36C-495A-93FC-0C247A3E6E5F",
      "G621E1F8-C36C-495A-93FC-0C247A3E6E5F", "E621E1F-8C36C-495A-93FC-0C247A3E6E5F",
      "E621E1F8-C36C-495A-93FC-0C247A3E6E5É",
      "E621E1F8-C36C-495A-93FC-0C247A3E6E5", "E621E1F8_C36C_495A_93FC_0C247A3E6E5F",
      "e621e1f8-c36c-495a-93fc-0c247a3e6e5g",
      "0x21E1F8-C36C-495A-93FC-0C247A3E6E5F", "+621E1F8-C36C-495A-93FC-0C247A3E6E5F",
      " 621E1F8-C36C-495A-93FC-0C247A3E6E5F",
    ]
    // Every single-character change of a valid text to a character of interest, at every place.
    let replacements: [Character] = ["-", "0", "9", "a", "f", "g", "A", "F", "G", " ", "\0", "x", "+", "é", "{"]
    let characters = Array(valid)
    for index in characters.indices {
      for replacement in replacements {
        var changed = characters
        changed[index] = replacement
        texts.append(String(changed))
      }
      var removed = characters
      removed.remove(at: index)
      texts.append(String(removed))
    }
    for text in texts {
      #expect(UUID(keyText: text) == UUID(uuidString: text), "\(text.debugDescription)")
    }
  }

  @Test func keysReadFromTheFileUseTheSameParsing() {
    let uuid = UUID()
    #expect(UUID.fromKeyValue(uuid.uuidString.databaseValue) == uuid)
    #expect(UUID.fromKeyValue(uuid.uuidString.lowercased().databaseValue) == uuid)
    #expect(UUID.fromKeyValue(uuid.databaseValue) == uuid)  // GRDB's 16-byte blob
    #expect(UUID.fromKeyValue("not a uuid".databaseValue) == nil)
    #expect(UUID.fromKeyValue(DatabaseValue.null) == nil)
    #expect(Int64.fromKeyValue(42.databaseValue) == 42)
    #expect(String.fromKeyValue(uuid.uuidString.databaseValue) == uuid.uuidString)
  }
}
