# frozen_string_literal: true

require "test_helper"
require_relative "../support/geojson_models"
require "nokogiri"
require "json"
require "time"

# Issue 20, item 6, on real documents from other projects' npm packages
# (rakelib/real_documents.yml records each source and licence; `rake fixtures`
# unpacks them): a GPX track (XML, and in JSON as [[TrackPoint]]), GeoJSON
# geometries (lists of lists, picked by their "type" member), an RSS podcast
# feed, a SAML assertion and GitHub's webhook payloads. Every field of
# the models is compared with an independent extraction (Nokogiri, JSON.parse),
# and decode(encode(x)) == x is checked on both backends.
class RealDocumentsTest < Minitest::Test
  GPX = ["gpxparser-3.0.8", "test/test.xml"].freeze
  GEOJSON = "geojson-fixtures-1.0.0"
  BACKENDS = Wirebind.backend == :native ? %i[pure native] : %i[pure]

  class TrackPoint
    include Wirebind::Model
    attribute :lat, :decimal, xml: "@lat"
    attribute :lon, :decimal, xml: "@lon"
    attribute :ele, :decimal
    attribute :time, :time
  end

  class TrackSegment
    include Wirebind::Model
    attribute :points, [TrackPoint], xml: "trkpt"
  end

  class Waypoint < TrackPoint
    attribute :name, :string
    attribute :cmt, :string
    attribute :desc, :string
  end

  class Track
    include Wirebind::Model
    attribute :name, :string
    attribute :cmt, :string
    attribute :desc, :string
    attribute :src, :string
    attribute :number, :integer
    attribute :type, :string
    attribute :segments, [TrackSegment], xml: "trkseg"
  end

  class Metadata
    include Wirebind::Model
    attribute :name, :string
    attribute :desc, :string
    attribute :keywords, :string
  end

  class Gpx
    include Wirebind::Model
    xml_root "gpx"
    attribute :version, :string, xml: "@version"
    attribute :creator, :string, xml: "@creator"
    attribute :metadata, Metadata
    attribute :waypoints, [Waypoint], xml: "wpt"
    attribute :tracks, [Track], xml: "trk"
  end

  # The same track in JSON, its segments as lists of points.
  class JSONTrack
    include Wirebind::Model
    attribute :name, :string
    attribute :segments, [[TrackPoint]]
  end

  # GeoJSON's seven geometry types under one "type" member (test/support/geojson_models.rb).
  include Wirebind::GeoJSONModels
  GEOMETRY_FILES = %w[point multipoint linestring multilinestring polygon multipolygon geometrycollection].flat_map do |name|
    [name, "#{name}-xyz"]
  end.freeze

  # An RSS 2.0 podcast feed (podcast-feed-parser's test data): <atom:link> comes
  # before <link>, <itunes:title> beside <title>, a <guid> with an attribute.
  ATOM = "http://www.w3.org/2005/Atom"
  ITUNES = "http://www.itunes.com/dtds/podcast-1.0.dtd"
  RSS = ["podcast-feed-parser-1.0.4", "test/testfiles/bc-sample.xml"].freeze

  class FeedItem
    include Wirebind::Model
    xml_prefix "itunes", ITUNES
    attribute :title, :string
    attribute :episode_title, :string, xml: "{#{ITUNES}}title"
    attribute :pub_date, :time, format: :rfc822, xml: "pubDate"
    attribute :guid, :string
    attribute :guid_is_permalink, :boolean, xml: "guid/@isPermaLink"
    attribute :link, :string
    attribute :enclosure_url, :string, xml: "enclosure/@url"
    attribute :enclosure_length, :integer, xml: "enclosure/@length"
    attribute :enclosure_type, :string, xml: "enclosure/@type"
    attribute :duration, :string, xml: "{#{ITUNES}}duration"
    attribute :episode, :integer, xml: "{#{ITUNES}}episode"
  end

  class FeedChannel
    include Wirebind::Model
    xml_prefix "atom", ATOM
    xml_prefix "itunes", ITUNES
    attribute :self_link, :string, xml: "{#{ATOM}}link/@href"
    attribute :title, :string
    attribute :pub_date, :time, format: :rfc822, xml: "pubDate"
    attribute :link, :string
    attribute :language, :string
    attribute :author, :string, xml: "{#{ITUNES}}author"
    attribute :items, [FeedItem], xml: "item"
  end

  class Feed
    include Wirebind::Model
    xml_root "rss"
    attribute :version, :string, xml: "@version"
    attribute :channel, FeedChannel
  end

  # A SAML 2.0 assertion (saml2-js's test data): everything in one namespace,
  # attributes read by path (SubjectConfirmation's @Method as :method).
  SAML = "urn:oasis:names:tc:SAML:2.0:assertion"
  SAML_ASSERTION = ["saml2-js-4.0.4", "test/data/good_assertion.xml"].freeze

  class SamlAttribute
    include Wirebind::Model
    xml_namespace SAML
    attribute :name, :string, xml: "@Name"
    attribute :values, [:string], xml: "AttributeValue"
  end

  class SamlAssertion
    include Wirebind::Model
    xml_namespace SAML
    xml_root "Assertion"
    attribute :id, :string, xml: "@ID"
    attribute :issue_instant, :time, xml: "@IssueInstant"
    attribute :version, :string, xml: "@Version"
    attribute :issuer, :string, xml: "Issuer"
    attribute :name_id, :string, xml: "Subject/NameID"
    attribute :name_id_format, :string, xml: "Subject/NameID/@Format"
    attribute :method, :string, xml: "Subject/SubjectConfirmation/@Method"
    attribute :recipient, :string, xml: "Subject/SubjectConfirmation/SubjectConfirmationData/@Recipient"
    attribute :in_response_to, :string, xml: "Subject/SubjectConfirmation/SubjectConfirmationData/@InResponseTo"
    attribute :not_before, :time, xml: "Conditions/@NotBefore"
    attribute :not_on_or_after, :time, xml: "Conditions/@NotOnOrAfter"
    attribute :audience, :string, xml: "Conditions/AudienceRestriction/Audience"
    attribute :attributes, [SamlAttribute], xml: "AttributeStatement/Attribute"
    attribute :session_index, :string, xml: "AuthnStatement/@SessionIndex"
    attribute :authn_context, :string, xml: "AuthnStatement/AuthnContext/AuthnContextClassRef"
  end

  # GitHub's "issues" webhook payloads (@octokit/webhooks-examples), one model per
  # object a user would read.
  GITHUB = ["octokit-webhooks-examples-7.6.1", "api.github.com/index.json"].freeze

  class GitHubUser
    include Wirebind::Model
    attribute :login, :string
    attribute :id, :integer
    attribute :type, :string
    attribute :site_admin, :boolean
  end

  class GitHubLabel
    include Wirebind::Model
    attribute :id, :integer
    attribute :name, :string
    attribute :color, :string
    attribute :default, :boolean
  end

  class GitHubIssue
    include Wirebind::Model
    attribute :id, :integer
    attribute :number, :integer
    attribute :title, :string
    attribute :state, :string
    attribute :locked, :boolean
    attribute :comments, :integer
    attribute :body, :string
    attribute :user, GitHubUser
    attribute :labels, [GitHubLabel]
    attribute :created_at, :time
    attribute :updated_at, :time
    attribute :closed_at, :time
  end

  class GitHubRepository
    include Wirebind::Model
    attribute :id, :integer
    attribute :full_name, :string
    attribute :private, :boolean
    attribute :owner, GitHubUser
  end

  class IssuesEvent
    include Wirebind::Model
    attribute :action, :string
    attribute :issue, GitHubIssue
    attribute :repository, GitHubRepository
    attribute :sender, GitHubUser
  end

  def test_gpx_every_field_against_nokogiri
    assert_xml_document(File.read(fixture_gem_path(*GPX)), Gpx) { |doc, gpx, label| assert_gpx_matches doc, gpx, label }
  end

  def test_gpx_track_as_json_lists_of_lists
    text = File.read(fixture_gem_path(*GPX))
    gpx = Wirebind::XML.decode(text, Gpx)
    track = JSONTrack.new(name: gpx.tracks[0].name, segments: gpx.tracks[0].segments.map(&:points))
    BACKENDS.each do |backend|
      json = Wirebind::JSON.encode(track, backend: backend)
      plain = JSON.parse(json, decimal_class: BigDecimal)
      assert_equal 205, plain["segments"][0].size
      points = Nokogiri::XML(text).xpath("//trkseg/trkpt")
      plain["segments"][0].zip(points).each do |point, xml|
        assert_equal [BigDecimal(xml["lat"]), BigDecimal(xml["lon"]), BigDecimal(xml.at("ele").text)],
                     [point["lat"], point["lon"], point["ele"]]
        assert_equal Time.iso8601(xml.at("time").text), Time.iso8601(point["time"])
      end
      assert_equal track, Wirebind::JSON.decode(json, JSONTrack, backend: backend), backend
    end
  end

  def test_geojson_every_geometry_type_against_json_parse
    GEOMETRY_FILES.each do |name|
      text = File.read(fixture_gem_path(GEOJSON, "data/geometry/#{name}.geojson"))
      plain = JSON.parse(text)
      # The same geometry with "type" last (as some writers put it): read in the one pass all the same.
      type_last = JSON.generate(plain.partition { |key, _| key != "type" }.flatten(1).to_h)
      BACKENDS.each do |backend|
        [text, type_last].each do |json|
          geometry = Wirebind::JSON.decode(json, Geometry, backend: backend)
          assert_geometry_matches plain, geometry, "#{name} #{backend}"
          encoded = Wirebind::JSON.encode(geometry, backend: backend)
          assert_geometry_matches JSON.parse(encoded), geometry, "#{name} #{backend} encoded"
          assert_equal geometry, Wirebind::JSON.decode(encoded, Geometry, backend: backend), "#{name} #{backend}"
        end
      end
    end
  end

  def test_rss_feed_every_field_against_nokogiri
    assert_xml_document(File.read(fixture_gem_path(*RSS)), Feed) do |doc, feed, label|
      assert_feed_matches doc, feed, label
      assert_equal "http://www.lawbc.com", feed.channel.link, "<link>, not the <atom:link/> before it (#{label})"
    end
  end

  def test_saml_assertion_every_field_against_nokogiri
    assert_xml_document(File.read(fixture_gem_path(*SAML_ASSERTION)), SamlAssertion) do |doc, assertion, label|
      assert_saml_matches doc, assertion, label
    end
  end

  def test_github_issues_webhooks_against_json_parse
    examples = JSON.parse(File.read(fixture_gem_path(*GITHUB))).find { |event| event["name"] == "issues" }.fetch("examples")
    assert_equal 29, examples.size
    BACKENDS.each do |backend|
      examples.each_with_index do |plain, index|
        label = "issues example #{index} (#{plain['action']}, #{backend})"
        event = Wirebind::JSON.decode(JSON.generate(plain), IssuesEvent, backend: backend)
        assert_github_matches plain, event, label
        again = Wirebind::JSON.encode(event, backend: backend)
        assert_equal event, Wirebind::JSON.decode(again, IssuesEvent, backend: backend), label
        assert_github_matches JSON.parse(again), event, "#{label}, re-encoded"
      end
    end
  end

  private

  # Every field of a GeoJSON geometry against JSON.parse's Hash: its type, its
  # coordinates (each number as a Float) or its geometries.
  def assert_geometry_matches(plain, geometry, label)
    assert_equal plain.fetch("type"), geometry.class.name.split("::").last, label
    if plain["type"] == "GeometryCollection"
      assert_equal plain.fetch("geometries").size, geometry.geometries.size, label
      plain["geometries"].zip(geometry.geometries) { |one, decoded| assert_geometry_matches one, decoded, label }
    else
      assert_equal float_leaves(plain.fetch("coordinates")), geometry.coordinates, label
      assert(geometry.coordinates.flatten.all?(Float), label)
    end
  end

  # Decodes +text+ as +klass+ on each backend, yields the original document
  # (Nokogiri) with the record, checks decode(encode(record)) == record, and
  # yields the re-encoded document with the record: the block compares the
  # modelled fields with namespace-aware XPath, so a value written into the
  # wrong namespace fails as surely as a wrong value.
  def assert_xml_document(text, klass)
    original = Nokogiri::XML(text)
    BACKENDS.each do |backend|
      record = Wirebind::XML.decode(text, klass, backend: backend)
      yield original, record, backend.to_s
      again = Wirebind::XML.encode(record, backend: backend)
      assert_equal record, Wirebind::XML.decode(again, klass, backend: backend), backend
      yield Nokogiri::XML(again), record, "#{backend}, re-encoded"
    end
  end

  def assert_feed_matches(doc, feed, label)
    ns = { "atom" => ATOM, "itunes" => ITUNES }
    channel = doc.at("/rss/channel")
    assert_equal doc.root["version"], feed.version, label
    assert_equal [channel.at("./atom:link", ns)["href"], channel.at("./title").text, Time.rfc2822(channel.at("./pubDate").text),
                  channel.at("./link").text, channel.at("./language").text, channel.at("./itunes:author", ns).text],
                 [feed.channel.self_link, feed.channel.title, feed.channel.pub_date, feed.channel.link,
                  feed.channel.language, feed.channel.author], label
    items = channel.xpath("./item")
    assert_equal 4, items.size, label
    assert_equal items.size, feed.channel.items.size, label
    items.zip(feed.channel.items).each do |xml, item|
      enclosure = xml.at("./enclosure")
      assert_equal [xml.at("./title").text, xml.at("./itunes:title", ns).text, Time.rfc2822(xml.at("./pubDate").text),
                    xml.at("./guid").text, xml.at("./guid")["isPermaLink"] == "true", xml.at("./link").text,
                    enclosure["url"], Integer(enclosure["length"]), enclosure["type"], xml.at("./itunes:duration", ns).text,
                    xml.at("./itunes:episode", ns)&.text&.then { |episode| Integer(episode) }],
                   [item.title, item.episode_title, item.pub_date, item.guid, item.guid_is_permalink, item.link,
                    item.enclosure_url, item.enclosure_length, item.enclosure_type, item.duration, item.episode], label
    end
  end

  def assert_saml_matches(doc, assertion, label)
    ns = { "saml" => SAML }
    root = doc.root
    assert_equal [SAML, "Assertion"], [root.namespace&.href, root.name], label
    confirmation = root.at("./saml:Subject/saml:SubjectConfirmation", ns)
    conditions = root.at("./saml:Conditions", ns)
    assert_equal [root["ID"], Time.iso8601(root["IssueInstant"]), root["Version"], root.at("./saml:Issuer", ns).text,
                  root.at("./saml:Subject/saml:NameID", ns).text, root.at("./saml:Subject/saml:NameID", ns)["Format"],
                  confirmation["Method"], confirmation.at("./saml:SubjectConfirmationData", ns)["Recipient"],
                  confirmation.at("./saml:SubjectConfirmationData", ns)["InResponseTo"],
                  Time.iso8601(conditions["NotBefore"]), Time.iso8601(conditions["NotOnOrAfter"]),
                  conditions.at("./saml:AudienceRestriction/saml:Audience", ns).text,
                  root.at("./saml:AuthnStatement", ns)["SessionIndex"],
                  root.at("./saml:AuthnStatement/saml:AuthnContext/saml:AuthnContextClassRef", ns).text],
                 [assertion.id, assertion.issue_instant, assertion.version, assertion.issuer, assertion.name_id,
                  assertion.name_id_format, assertion.method_value, assertion.recipient, assertion.in_response_to,
                  assertion.not_before, assertion.not_on_or_after, assertion.audience, assertion.session_index,
                  assertion.authn_context], label
    attributes = root.xpath("./saml:AttributeStatement/saml:Attribute", ns).map do |attribute|
      [attribute["Name"], attribute.xpath("./saml:AttributeValue", ns).map(&:text)]
    end
    assert_equal 6, attributes.size, label
    assert_equal attributes, assertion.attributes.map { |attribute| [attribute.name, attribute.values] }, label
  end

  def assert_github_matches(plain, event, label)
    assert_equal plain["action"], event.action, label
    assert_github_user plain["sender"], event.sender, label
    repository = plain["repository"]
    assert_equal [repository["id"], repository["full_name"], repository["private"]],
                 [event.repository.id, event.repository.full_name, event.repository.private], label
    assert_github_user repository["owner"], event.repository.owner, label
    issue = plain["issue"]
    assert_equal %w[id number title state locked comments body].map { |name| issue[name] },
                 [event.issue.id, event.issue.number, event.issue.title, event.issue.state, event.issue.locked,
                  event.issue.comments, event.issue.body], label
    assert_equal(%w[created_at updated_at closed_at].map { |name| issue[name] && Time.iso8601(issue[name]) },
                 [event.issue.created_at, event.issue.updated_at, event.issue.closed_at], label)
    assert_github_user issue["user"], event.issue.user, label
    assert_equal((issue["labels"] || []).map { |item| item.values_at("id", "name", "color", "default") },
                 (event.issue.labels || []).map { |item| [item.id, item.name, item.color, item.default] }, label)
  end

  def assert_github_user(plain, user, label)
    assert_equal plain.values_at("login", "id", "type", "site_admin"), [user.login, user.id, user.type, user.site_admin], label
  end

  def assert_gpx_matches(doc, gpx, label)
    root = doc.root
    assert_equal [root["version"], root["creator"]], [gpx.version, gpx.creator], label
    metadata = root.at("metadata")
    assert_equal %w[name desc keywords].map { |name| metadata.at("./#{name}").text },
                 [gpx.metadata.name, gpx.metadata.desc, gpx.metadata.keywords], label
    wpts = root.xpath("wpt")
    assert_equal wpts.size, gpx.waypoints.size, label
    wpts.zip(gpx.waypoints).each do |xml, wpt|
      assert_equal [BigDecimal(xml["lat"]), BigDecimal(xml["lon"]), BigDecimal(xml.at("ele").text), Time.iso8601(xml.at("time").text)],
                   [wpt.lat, wpt.lon, wpt.ele, wpt.time], label
      assert_equal %w[name desc cmt].map { |name| xml.at("./#{name}").text }, [wpt.name, wpt.desc, wpt.cmt], label
    end
    trks = root.xpath("trk")
    assert_equal trks.size, gpx.tracks.size, label
    trks.zip(gpx.tracks).each do |xml, track|
      assert_equal %w[name cmt desc src type].map { |name| xml.at("./#{name}").text },
                   [track.name, track.cmt, track.desc, track.src, track.type], label
      assert_equal Integer(xml.at("./number").text), track.number, label
      segments = xml.xpath("trkseg")
      assert_equal segments.map { |segment| segment.xpath("trkpt").size }, track.segments.map { |segment| segment.points.size }, label
      segments.zip(track.segments).each do |segment, decoded|
        segment.xpath("trkpt").zip(decoded.points).each do |point, got|
          assert_equal [BigDecimal(point["lat"]), BigDecimal(point["lon"]), BigDecimal(point.at("ele").text),
                        Time.iso8601(point.at("time").text)], [got.lat, got.lon, got.ele, got.time], label
        end
      end
    end
  end
end
