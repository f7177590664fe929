# frozen_string_literal: true

module Wirebind
  # Rails integration, loaded by +require "wirebind"+ only when Rails is
  # (+Rails::Railtie+ defined). It adds one controller renderer, +wirebind:+,
  # rather than one per format (+hal:+, +json_api:+ ...): the format is an
  # option like the serializer, as in {Rack::Body}, and the generic renderer
  # names stay free for other gems.
  #
  # The value is served as a {Rack::Body}: a Relation, a +find_each+ /
  # +find_in_batches+ Enumerator, an Enumerator or any +each+-able is a
  # collection written in 64 KiB pieces as it is read (a Relation in batches,
  # through +find_each+), so memory stays flat whatever the number of rows.
  # Under Rails' default middleware +Rack::ETag+ digests the body first
  # (Rails' response answers +to_ary+): the document is then encoded once,
  # kept (beyond 1 MiB in a Tempfile, so memory stays flat) and replayed to the
  # client, with an ETag (+If-None-Match+ answers 304). An +ETag+ or
  # +Last-Modified+ header set before +render+ (+fresh_when+) skips the
  # digest: the document then streams from the first row.
  #
  # @example In a controller
  #   render wirebind: Article.includes(:comments), format: :json_api,
  #          serializer: ArticleSerializer, include: "comments"
  #   render wirebind: ArticleSerializer.new(article, format: :hal), status: :created
  #   render wirebind: Article.all, format: :xml, root: "articles", item: "article"
  class Railtie < ::Rails::Railtie
    # The render options Rails itself uses or adds; the others go to {Rack::Body#initialize Rack::Body.new}.
    RAILS_OPTIONS = %i[action content_type formats layout location prefixes status template].freeze

    # The renderer's body, called in the controller: +options+ are +render+'s
    # (Rails' own ones left out).
    # @param controller [ActionController::Metal]
    # @param value [Object] what {Rack::Body#initialize Rack::Body.new} takes
    # @param options [Hash]
    # @return [Rack::Body]
    # @raise [ArgumentError] an option {Rack::Body#initialize Rack::Body.new} does not take
    def self.render(controller, value, options)
      body = Rack::Body.new(value, **options.except(*RAILS_OPTIONS))
      controller.content_type = body.content_type if controller.media_type.nil?
      # Rack::ETag hands the server an Enumerator of the body, which has no
      # close: the body's (what it kept for the digest) runs when the server
      # has finished the response, where the server says when (Rack 3).
      finished = controller.request.env["rack.response_finished"]
      finished << ->(*) { body.close } if finished.is_a?(Array)
      body
    end

    initializer "wirebind.renderer" do
      ActiveSupport.on_load(:action_controller) do
        ActionController::Renderers.add(:wirebind) do |value, options|
          Wirebind::Railtie.render(self, value, options)
        end
      end
    end
  end
end
